//! Model (1) as a sparse convex QP, solved by clarabel's interior-point method.

use crate::core::math::DVec3;

pub(super) struct Ipm {
    pub(super) lambda: Vec<f64>,
    pub(super) sigma: Vec<f64>,
    pub(super) iterations: u32,
    pub(super) status: Result<(), String>,
}

/// Model (1) as a sparse QP for clarabel, in coordinates centred at `origin` and divided by
/// `scale`: variables z = (λ, σ, w), minimise ½‖w‖² subject to Yσ − Xλ − w = 0, Σλ = 1,
/// Σσ = 1, λ ≥ 0, σ ≥ 0.
#[cfg(not(feature = "qp-faithful"))]
pub(super) fn ipm_solve(_xs: &[DVec3], _ys: &[DVec3], _origin: DVec3, _scale: f64) -> Ipm {
    // Unreachable: the faithful entry points refuse first (`require_ipm`).
    Ipm {
        lambda: Vec::new(),
        sigma: Vec::new(),
        iterations: 0,
        status: Err("built without the qp-faithful feature".into()),
    }
}

#[cfg(feature = "qp-faithful")]
pub(super) fn ipm_solve(xs: &[DVec3], ys: &[DVec3], origin: DVec3, scale: f64) -> Ipm {
    use clarabel::algebra::CscMatrix;
    use clarabel::solver::{DefaultSettingsBuilder, DefaultSolver, IPSolver, SolverStatus, SupportedConeT};
    let (na, nb) = (xs.len(), ys.len());
    let n = na + nb + 3;
    let m = 5 + na + nb;
    let inv = 1.0 / scale;
    let mut colptr = Vec::with_capacity(n + 1);
    let mut rowval = Vec::with_capacity(5 * (na + nb) + 3);
    let mut nzval = Vec::with_capacity(5 * (na + nb) + 3);
    colptr.push(0);
    for (i, x) in xs.iter().enumerate() {
        let p = (*x - origin) * inv;
        rowval.extend_from_slice(&[0, 1, 2, 3, 5 + i]);
        nzval.extend_from_slice(&[-p.x, -p.y, -p.z, 1.0, -1.0]);
        colptr.push(rowval.len());
    }
    for (j, y) in ys.iter().enumerate() {
        let p = (*y - origin) * inv;
        rowval.extend_from_slice(&[0, 1, 2, 4, 5 + na + j]);
        nzval.extend_from_slice(&[p.x, p.y, p.z, 1.0, -1.0]);
        colptr.push(rowval.len());
    }
    for k in 0..3 {
        rowval.push(k);
        nzval.push(-1.0);
        colptr.push(rowval.len());
    }
    let a_mat = CscMatrix::new(m, n, colptr, rowval, nzval);
    let mut pcol = vec![0usize; na + nb + 1];
    pcol.extend_from_slice(&[1, 2, 3]);
    let p_mat = CscMatrix::new(n, n, pcol, vec![na + nb, na + nb + 1, na + nb + 2], vec![1.0; 3]);
    let q = vec![0.0; n];
    let mut bvec = vec![0.0; m];
    bvec[3] = 1.0;
    bvec[4] = 1.0;
    let cones = [SupportedConeT::ZeroConeT(5), SupportedConeT::NonnegativeConeT(na + nb)];
    let fail = |msg: String| Ipm {
        lambda: vec![0.0; na],
        sigma: vec![0.0; nb],
        iterations: 0,
        status: Err(msg),
    };
    let settings = match DefaultSettingsBuilder::default()
        .verbose(false)
        .max_iter(200)
        .tol_gap_abs(1e-10)
        .tol_gap_rel(1e-10)
        .tol_feas(1e-10)
        .build()
    {
        Ok(s) => s,
        Err(e) => return fail(format!("clarabel settings: {e}")),
    };
    let mut solver = match DefaultSolver::new(&p_mat, &q, &a_mat, &bvec, &cones, settings) {
        Ok(s) => s,
        Err(e) => return fail(format!("clarabel setup: {e}")),
    };
    solver.solve();
    let status = solver.solution.status;
    let iterations = solver.solution.iterations;
    if !matches!(status, SolverStatus::Solved | SolverStatus::AlmostSolved) {
        let mut f = fail(format!("clarabel status {status:?}"));
        f.iterations = iterations;
        return f;
    }
    let z = &solver.solution.x;
    // Clip the interior point's tiny negative round-off and renormalise: the weights are
    // then exactly feasible convex combinations.
    let norm = |v: &[f64]| -> Vec<f64> {
        let c: Vec<f64> = v.iter().map(|&t| if t > 0.0 { t } else { 0.0 }).collect();
        let s: f64 = c.iter().sum();
        if s > 0.0 {
            c.iter().map(|t| t / s).collect()
        } else {
            vec![1.0 / v.len().max(1) as f64; v.len()]
        }
    };
    match (z.get(..na), z.get(na..na + nb)) {
        (Some(l), Some(s)) => Ipm {
            lambda: norm(l),
            sigma: norm(s),
            iterations,
            status: Ok(()),
        },
        _ => fail("clarabel returned a short solution".into()),
    }
}
