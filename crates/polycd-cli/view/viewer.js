// polycd view: draws the scene in #polycd-data (format "polycd-view/1", written by
// crates/polycd-cli/src/view.rs) with three.js. Renders on demand: when the camera moves, the
// timeline or a toggle changes, or the window resizes.
//
// For tests and scripts: <html data-status> is "ok" once the first frame is drawn ("error" on
// any error, listed in #errors), and #probes holds the window pixel of every visible point
// marker (witness or contact points) and of every body's and body copy's centroid, with their
// colours, and the frame shown.

import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';

const data = JSON.parse(document.getElementById('polycd-data').textContent);
const $ = (id) => document.getElementById(id);

const vec = (a) => new THREE.Vector3(a[0], a[1], a[2]);
const setPose = (obj, pose) => {
  obj.position.copy(vec(pose.translation));
  const [w, x, y, z] = pose.rotation;
  obj.quaternion.set(x, y, z, w);
};
const fmt = (x) => (Number.isInteger(x) ? String(x) : Number(x).toPrecision(9));

// ---------------------------------------------------------------- geometry helpers

// Polygon faces (fan-triangulated) as a non-indexed geometry: flat shading, optional colours.
function faceGeometry(vertices, faces, faceColors) {
  const pos = [];
  const col = [];
  faces.forEach((f, k) => {
    for (let i = 1; i + 1 < f.length; i++) {
      for (const v of [f[0], f[i], f[i + 1]]) {
        pos.push(...vertices[v]);
        if (faceColors) col.push(faceColors[k].r, faceColors[k].g, faceColors[k].b);
      }
    }
  });
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.Float32BufferAttribute(pos, 3));
  if (faceColors) g.setAttribute('color', new THREE.Float32BufferAttribute(col, 3));
  g.computeVertexNormals();
  return g;
}

// The polygons' edges, each once.
function polygonEdges(vertices, faces) {
  const seen = new Set();
  const pos = [];
  for (const f of faces) {
    for (let i = 0; i < f.length; i++) {
      const a = f[i];
      const b = f[(i + 1) % f.length];
      const key = a < b ? a + ',' + b : b + ',' + a;
      if (seen.has(key)) continue;
      seen.add(key);
      pos.push(...vertices[a], ...vertices[b]);
    }
  }
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.Float32BufferAttribute(pos, 3));
  return g;
}

// A solid cylinder from p to q.
function tube(p, q, radius, material) {
  const d = q.clone().sub(p);
  const len = d.length();
  if (!(len > 0)) return null;
  const m = new THREE.Mesh(new THREE.CylinderGeometry(radius, radius, len, 12, 1), material);
  m.position.copy(p).addScaledVector(d, 0.5);
  m.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), d.normalize());
  return m;
}

// An arrow (shaft and cone) from p along v, at its true length.
function arrow(p, v, radius, material) {
  const len = v.length();
  const g = new THREE.Group();
  if (!(len > 0)) return g;
  const dir = v.clone().normalize();
  const head = Math.min(0.35 * len, 8 * radius);
  const shaftEnd = p.clone().addScaledVector(dir, len - head);
  const shaft = tube(p, shaftEnd, radius, material);
  if (shaft) g.add(shaft);
  const cone = new THREE.Mesh(new THREE.ConeGeometry(2.6 * radius, head, 16), material);
  cone.position.copy(shaftEnd).addScaledVector(dir, head / 2);
  cone.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), dir);
  g.add(cone);
  return g;
}

// The mean of a body's vertices (inside a convex body).
function centroid(vertices) {
  const c = new THREE.Vector3();
  for (const v of vertices) c.add(vec(v));
  return vertices.length ? c.divideScalar(vertices.length) : c;
}

// Whether `o` is `group` or inside it.
function isInside(o, group) {
  for (; o; o = o.parent) if (o === group) return true;
  return false;
}

// Distinct colours for the convex pieces of a mesh (golden-angle hues).
const pieceColor = (i) => new THREE.Color().setHSL((i * 0.618034) % 1, 0.6, 0.55);

// ---------------------------------------------------------------- the page

function main() {
  if (data.format !== 'polycd-view/1') throw new Error('unknown scene format ' + data.format);
  panel();

  // "#show=a,b&hide=c&size=WxH" in the address: layers on or off, a fixed size of the view.
  const params = new URLSearchParams(location.hash.replace(/^#/, ''));
  const listed = (k) => (params.get(k) || '').split(',').filter((s) => s);
  const fixed = /^(\d+)x(\d+)$/.exec(params.get('size') || '');
  const host = $('view');
  const size = () => (fixed ? [Number(fixed[1]), Number(fixed[2])] : [host.clientWidth, host.clientHeight]);
  const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(window.devicePixelRatio || 1);
  renderer.setSize(...size());
  host.appendChild(renderer.domElement);

  const scene = new THREE.Scene();
  scene.background = new THREE.Color('#ffffff');
  const camera = new THREE.PerspectiveCamera(35, size()[0] / size()[1], 0.01, 100);
  scene.add(camera);
  scene.add(new THREE.AmbientLight(0xffffff, 1.6));
  const light = new THREE.DirectionalLight(0xffffff, 1.6);
  light.position.set(0.4, 0.8, 1);
  camera.add(light);

  // Sizes follow the scene: its bounding sphere over every frame.
  const box = new THREE.Box3();
  const tmp = new THREE.Object3D();
  for (const frame of data.frames) {
    data.bodies.forEach((b, k) => {
      setPose(tmp, frame.poses[k]);
      tmp.updateMatrix();
      for (const v of b.vertices) box.expandByPoint(vec(v).applyMatrix4(tmp.matrix));
    });
  }
  const sphere = box.getBoundingSphere(new THREE.Sphere());
  const R = sphere.radius > 0 ? sphere.radius : 1;
  const markerR = 0.03 * R;
  const tubeR = 0.0045 * R;

  // Bodies, each a group posed per frame.
  const bodies = data.bodies.map((b) => {
    const group = new THREE.Group();
    const mesh = b.kind === 'mesh';
    let faceColors = null;
    if (mesh && b.pieces && b.pieces.length > 1) {
      faceColors = new Array(b.faces.length).fill(new THREE.Color(b.color));
      b.pieces.forEach((tris, i) => tris.forEach((t) => (faceColors[t] = pieceColor(i))));
    }
    const faceMat = new THREE.MeshLambertMaterial({
      color: faceColors ? 0xffffff : b.color,
      vertexColors: !!faceColors,
      transparent: true,
      opacity: mesh ? 0.55 : 0.3,
      side: THREE.DoubleSide,
      depthWrite: false,
    });
    const geom = faceGeometry(b.vertices, b.faces, faceColors);
    group.add(new THREE.Mesh(geom, faceMat));
    const edgeGeom = mesh ? new THREE.EdgesGeometry(geom, 25) : polygonEdges(b.vertices, b.faces);
    const edgeMat = new THREE.LineBasicMaterial({ color: new THREE.Color(b.color).multiplyScalar(0.6) });
    group.add(new THREE.LineSegments(edgeGeom, edgeMat));
    scene.add(group);
    return { data: b, group, faceMat, edgeMat, baseOpacity: faceMat.opacity, baseEdge: edgeMat.color.clone(), levels: [] };
  });

  // Layers.
  const markers = []; // point markers, for the probes
  // Bodies and body copies, for the probes: the projection of each one's centroid.
  const solids = bodies.map((b) => ({ id: b.data.name, color: b.data.color, object: b.group, vertices: b.data.vertices, centre: centroid(b.data.vertices) }));
  let order = 100;
  const layers = data.layers.map((l) => {
    const g = new THREE.Group();
    const color = new THREE.Color(l.color);
    const solid = new THREE.MeshBasicMaterial({ color });
    if (l.kind === 'points') {
      order += 2;
      for (const p of l.points) {
        // A white halo, then the colour: opaque, drawn last and through everything, so that
        // the pixel at its centre has exactly the layer's colour.
        const halo = new THREE.Mesh(new THREE.SphereGeometry(markerR * 1.45, 20, 14),
          new THREE.MeshBasicMaterial({ color: 0xffffff, depthTest: false, transparent: true, opacity: 1 }));
        const dot = new THREE.Mesh(new THREE.SphereGeometry(markerR, 20, 14),
          new THREE.MeshBasicMaterial({ color, depthTest: false, transparent: true, opacity: 1 }));
        halo.renderOrder = order;
        dot.renderOrder = order + 1;
        halo.position.copy(vec(p.at));
        dot.position.copy(vec(p.at));
        g.add(halo, dot);
        markers.push({ layer: l, name: p.name, object: dot, order: order + 1 });
      }
    } else if (l.kind === 'segment' || l.kind === 'arrow') {
      // Drawn over the bodies' translucent faces (and under the point markers), in its
      // exact colour: a witness segment or a penetration inside a body stays visible.
      const onTop = new THREE.MeshBasicMaterial({ color, depthTest: false, transparent: true, opacity: 1 });
      if (l.kind === 'segment') {
        const t = tube(vec(l.from), vec(l.to), tubeR, onTop);
        if (t) g.add(t);
      } else {
        g.add(arrow(vec(l.from), vec(l.vector), tubeR * 1.2, onTop));
      }
      g.traverse((o) => {
        if (o.isMesh) o.renderOrder = 50; // not the groups: a group's order would sort it after the markers
      });
    } else if (l.kind === 'polygon') {
      // Closed outlines (contact polygons), drawn like segments: over the faces, under markers.
      const onTop = new THREE.MeshBasicMaterial({ color, depthTest: false, transparent: true, opacity: 1 });
      for (const loop of l.loops) {
        const pts = loop.map(vec);
        const closed = pts.length > 2 ? pts.length : pts.length - 1;
        for (let i = 0; i < closed; i++) {
          const t = tube(pts[i], pts[(i + 1) % pts.length], tubeR, onTop);
          if (t) g.add(t);
        }
      }
      g.traverse((o) => {
        if (o.isMesh) o.renderOrder = 50;
      });
    } else if (l.kind === 'hulls') {
      // Convex pieces as translucent hulls, one colour each (world frame).
      l.hulls.forEach((h, i) => {
        const c = pieceColor(i);
        g.add(new THREE.Mesh(faceGeometry(h.vertices, h.faces, null),
          new THREE.MeshBasicMaterial({ color: c, transparent: true, opacity: 0.3, side: THREE.DoubleSide, depthWrite: false })));
        g.add(new THREE.LineSegments(polygonEdges(h.vertices, h.faces), new THREE.LineBasicMaterial({ color: c })));
      });
    } else if (l.kind === 'plane') {
      const quad = new THREE.Mesh(new THREE.PlaneGeometry(l.size, l.size),
        new THREE.MeshBasicMaterial({ color, transparent: true, opacity: 0.22, side: THREE.DoubleSide, depthWrite: false }));
      quad.position.copy(vec(l.center));
      quad.quaternion.setFromUnitVectors(new THREE.Vector3(0, 0, 1), vec(l.normal).normalize());
      const outline = new THREE.LineSegments(new THREE.EdgesGeometry(quad.geometry), new THREE.LineBasicMaterial({ color }));
      outline.position.copy(quad.position);
      outline.quaternion.copy(quad.quaternion);
      g.add(quad, outline);
    } else if (l.kind === 'features') {
      for (const item of l.items) {
        const pts = item.points.map(vec);
        if (pts.length === 1) {
          const s = new THREE.Mesh(new THREE.SphereGeometry(markerR * 0.7, 16, 12), solid);
          s.position.copy(pts[0]);
          g.add(s);
        }
        for (let i = 0; i < pts.length && pts.length > 1; i++) {
          if (pts.length === 2 && i === 1) break;
          const t = tube(pts[i], pts[(i + 1) % pts.length], tubeR * 1.6, solid);
          if (t) g.add(t);
        }
        if (pts.length >= 3) {
          const f = faceGeometry(item.points, [item.points.map((_, i) => i)], null);
          g.add(new THREE.Mesh(f, new THREE.MeshBasicMaterial({ color, transparent: true, opacity: 0.35, side: THREE.DoubleSide, depthWrite: false })));
        }
      }
    } else if (l.kind === 'body_copy') {
      const b = data.bodies[l.body];
      const copy = new THREE.Group();
      copy.add(new THREE.Mesh(faceGeometry(b.vertices, b.faces, null),
        new THREE.MeshLambertMaterial({ color, transparent: true, opacity: 0.12, side: THREE.DoubleSide, depthWrite: false })));
      const e = new THREE.LineSegments(polygonEdges(b.vertices, b.faces),
        new THREE.LineDashedMaterial({ color, dashSize: 0.03 * R, gapSize: 0.02 * R }));
      e.computeLineDistances();
      copy.add(e);
      setPose(copy, l.pose);
      g.add(copy);
      solids.push({ id: l.id, color: l.color, object: copy, vertices: b.vertices, centre: centroid(b.vertices) });
    } else if (l.kind === 'simplex') {
      const ends = [];
      for (const pr of l.pairs) {
        const a = vec(pr.a);
        const b = vec(pr.b);
        for (const p of [a, b]) {
          const s = new THREE.Mesh(new THREE.SphereGeometry(markerR * 0.6, 14, 10), solid);
          s.position.copy(p);
          g.add(s);
        }
        const t = tube(a, b, tubeR * 0.7, solid);
        if (t) g.add(t);
        if (l.point) ends.push(vec(l.point).add(a.clone().sub(b)));
      }
      // The differences a_i - b_i placed at the common point: their hull holds that point.
      for (let i = 0; i < ends.length; i++) {
        for (let j = i + 1; j < ends.length; j++) {
          const t = tube(ends[i], ends[j], tubeR, solid);
          if (t) g.add(t);
        }
      }
    } else {
      throw new Error('unknown layer kind ' + l.kind);
    }
    scene.add(g);
    return { data: l, group: g, on: !!l.visible };
  });

  for (const L of layers) {
    if (listed('show').includes(L.data.id)) L.on = true;
    if (listed('hide').includes(L.data.id)) L.on = false;
  }

  // Camera: looking at the scene's centre across the first witness segment, plane normal or
  // arrow (so that it shows at full length), a little from above.
  let key = null;
  for (const l of data.layers) {
    if (key) break;
    if (l.kind === 'segment') key = vec(l.to).sub(vec(l.from));
    else if (l.kind === 'plane') key = vec(l.normal);
    else if (l.kind === 'arrow') key = vec(l.vector);
  }
  let dir = new THREE.Vector3(0.45, 0.5, 1).normalize();
  if (Array.isArray(data.view) && vec(data.view).length() > 0) {
    // The scene's own view direction (a contact polygon seen obliquely).
    dir = vec(data.view).normalize();
  } else if (key && key.length() > 0) {
    key.normalize();
    const across = dir.clone().addScaledVector(key, -dir.dot(key));
    if (across.length() < 0.2) across.set(0, 1, 0).addScaledVector(key, -key.y);
    dir = across.normalize().addScaledVector(key, 0.3).normalize();
  }
  const controls = new OrbitControls(camera, renderer.domElement);
  const fit = () => {
    const [w, h] = size();
    camera.aspect = w / h;
    const vfov = THREE.MathUtils.degToRad(camera.fov);
    const hfov = 2 * Math.atan(Math.tan(vfov / 2) * camera.aspect);
    const dist = (1.08 * R) / Math.sin(Math.min(vfov, hfov) / 2);
    camera.position.copy(sphere.center).addScaledVector(dir, dist);
    camera.near = dist / 100;
    camera.far = dist * 10;
    camera.updateProjectionMatrix();
    controls.target.copy(sphere.center);
    controls.update();
  };
  fit();

  // Frames and visibility.
  let frame = Math.min(Math.max(data.frame | 0, 0), data.frames.length - 1);
  const contact = data.marks && data.marks.contact;
  let level = -1;
  const apply = () => {
    const f = data.frames[frame];
    bodies.forEach((b, k) => {
      setPose(b.group, f.poses[k]);
      const hit = frame === contact;
      b.faceMat.opacity = hit ? Math.min(1, b.baseOpacity + 0.25) : b.baseOpacity;
      b.edgeMat.color.copy(hit ? new THREE.Color('#d00000') : b.baseEdge);
      b.levels.forEach((g, i) => (g.visible = i === level));
    });
    for (const L of layers) L.group.visible = L.on && (L.data.frame === null || L.data.frame === frame);
    if (data.frames.length > 1) {
      const label = f.label ? ' (' + f.label + ')' : '';
      $('time').textContent = 't = ' + fmt(f.t) + label;
      $('slider').value = String(frame);
    }
  };

  const probes = () => {
    const rect = renderer.domElement.getBoundingClientRect();
    const right = new THREE.Vector3().setFromMatrixColumn(camera.matrixWorld, 0);
    const list = [];
    for (const m of markers) {
      if (!m.object.parent.visible) continue;
      const c = m.object.position.clone().project(camera);
      const e = m.object.position.clone().addScaledVector(right, markerR).project(camera);
      const x = rect.left + ((c.x + 1) / 2) * rect.width;
      const y = rect.top + ((1 - c.y) / 2) * rect.height;
      const r = (Math.abs(e.x - c.x) / 2) * rect.width;
      const hex = new THREE.Color(m.layer.color).getHex(); // sRGB, as on screen
      list.push({ layer: m.layer.id, name: m.name, x, y, radius: r, order: m.order, inside: c.z > -1 && c.z < 1,
        color: [(hex >> 16) & 255, (hex >> 8) & 255, hex & 255] });
    }
    // For each body: its centroid, and a point of it (the centroid, or a point between the
    // centroid and a vertex) whose pixel shows no other surface: the ray through it meets
    // this body's faces only. Its pixel has the body's hue on the screenshot.
    const solidProbes = [];
    const shown = (o) => {
      for (; o; o = o.parent) if (!o.visible) return false;
      return true;
    };
    const ray = new THREE.Raycaster();
    for (const s of solids) {
      if (!shown(s.object)) continue;
      const centre = s.centre.clone().applyMatrix4(s.object.matrixWorld);
      const candidates = [s.centre];
      for (const k of [0.6, 0.85]) for (const v of s.vertices) candidates.push(s.centre.clone().lerp(vec(v), k));
      let clear = null;
      for (const local of candidates) {
        const w = local.clone().applyMatrix4(s.object.matrixWorld);
        const c = w.clone().project(camera);
        if (!(c.z > -1 && c.z < 1 && Math.abs(c.x) < 0.95 && Math.abs(c.y) < 0.95)) continue;
        ray.setFromCamera(new THREE.Vector2(c.x, c.y), camera);
        const hits = ray.intersectObject(scene, true).filter((h) => h.object.isMesh && shown(h.object));
        if (hits.length > 0 && hits.every((h) => isInside(h.object, s.object))) {
          clear = { w, c };
          break;
        }
      }
      const hex = new THREE.Color(s.color).getHex();
      const probe = { id: s.id, centroid: [centre.x, centre.y, centre.z], clear: !!clear,
        color: [(hex >> 16) & 255, (hex >> 8) & 255, hex & 255] };
      if (clear) {
        probe.at = [clear.w.x, clear.w.y, clear.w.z];
        probe.x = rect.left + ((clear.c.x + 1) / 2) * rect.width;
        probe.y = rect.top + ((1 - clear.c.y) / 2) * rect.height;
      }
      solidProbes.push(probe);
    }
    // A marker drawn later (with its halo) over another one's centre hides it.
    for (const p of list) {
      p.covered = list.some((q) => q.order > p.order && Math.hypot(q.x - p.x, q.y - p.y) < q.radius * 1.45 + 1);
    }
    $('probes').textContent = JSON.stringify({ width: window.innerWidth, height: window.innerHeight,
      devicePixelRatio: window.devicePixelRatio || 1, frame, probes: list, solids: solidProbes });
  };

  const draw = () => {
    apply();
    renderer.render(scene, camera);
    probes();
  };
  controls.addEventListener('change', draw);
  window.addEventListener('resize', () => {
    renderer.setSize(...size());
    fit();
    draw();
  });

  // Timeline.
  if (data.frames.length > 1) {
    $('timeline').hidden = false;
    const slider = $('slider');
    slider.max = String(data.frames.length - 1);
    slider.addEventListener('input', () => {
      frame = Number(slider.value);
      draw();
    });
    for (const button of document.querySelectorAll('[data-mark]')) {
      const at = data.marks[button.dataset.mark];
      if (at === null || at === undefined) button.disabled = true;
      button.addEventListener('click', () => {
        frame = at;
        draw();
      });
    }
  }

  // Hull tree levels of meshes (built when first shown).
  const depth = Math.max(0, ...data.bodies.map((b) => (b.hull_levels ? b.hull_levels.length : 0)));
  if (depth > 0) {
    $('levels').hidden = false;
    const select = $('level');
    select.add(new Option('off', '-1'));
    for (let i = 0; i < depth; i++) {
      const counts = data.bodies.map((b) => (b.hull_levels && b.hull_levels[Math.min(i, b.hull_levels.length - 1)].length) || 0);
      select.add(new Option(i + (i === 0 ? ' (root)' : '') + ': ' + counts.join(' + ') + ' hulls', String(i)));
    }
    select.addEventListener('change', () => {
      level = Number(select.value);
      bodies.forEach((b) => {
        const levels = b.data.hull_levels || [];
        const at = Math.min(level, levels.length - 1);
        if (level >= 0 && at >= 0 && !b.levels[level]) {
          const g = new THREE.Group();
          levels[at].forEach((h, i) => {
            const c = pieceColor(i * 7 + 3);
            g.add(new THREE.LineSegments(polygonEdges(h.vertices, h.faces), new THREE.LineBasicMaterial({ color: c })));
            g.add(new THREE.Mesh(faceGeometry(h.vertices, h.faces, null),
              new THREE.MeshBasicMaterial({ color: c, transparent: true, opacity: 0.08, side: THREE.DoubleSide, depthWrite: false })));
          });
          b.levels[level] = g;
          b.group.add(g);
        }
      });
      draw();
    });
  }

  legend(layers, draw);
  draw();
  if (document.documentElement.getAttribute('data-status') !== 'error') {
    document.documentElement.setAttribute('data-status', 'ok');
  }
}

// ---------------------------------------------------------------- the panel

function valueText(v) {
  if (typeof v === 'number') return fmt(v);
  if (Array.isArray(v) && v.every((x) => typeof x === 'number')) return '[' + v.map(fmt).join(', ') + ']';
  if (v && typeof v === 'object' && v.a && v.b && v.a.kind) return 'A ' + v.a.kind + ' ' + v.a.id + ', B ' + v.b.kind + ' ' + v.b.id;
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function panel() {
  $('title').textContent = data.title;
  const status = $('status');
  status.textContent = (data.query || '') + ': ' + data.status;
  status.className = String(data.status);
  const table = $('numbers');
  const manifoldRows = (m, tag) => {
    if (!m || !Array.isArray(m.points)) return;
    const head = table.insertRow();
    head.insertCell().textContent = tag + ' normal';
    head.insertCell().textContent = Array.isArray(m.normal) ? valueText(m.normal) : '(none)';
    m.points.forEach((q, i) => {
      const row = table.insertRow();
      row.insertCell().textContent = tag + ' point ' + i;
      const cell = row.insertCell();
      cell.textContent = 'A ' + valueText(q.a) + ', B ' + valueText(q.b) + ', separation ' + valueText(q.separation);
      cell.title = JSON.stringify(q);
    });
  };
  for (const [k, v] of Object.entries(data.answer || {})) {
    if (v === null || k === 'status') continue;
    if (k === 'manifold' && typeof v === 'object') {
      manifoldRows(v, 'manifold');
      continue;
    }
    if ((k === 'manifolds' || k === 'contacts') && Array.isArray(v)) {
      if (v.length === 0) {
        const row = table.insertRow();
        row.insertCell().textContent = k;
        row.insertCell().textContent = 'none';
      }
      v.forEach((m, i) => {
        if (m && Array.isArray(m.points)) manifoldRows(m, (k === 'manifolds' ? 'manifold ' : 'contact ') + i);
        else {
          const row = table.insertRow();
          row.insertCell().textContent = k + ' ' + i;
          row.insertCell().textContent = valueText(m);
        }
      });
      continue;
    }
    const row = table.insertRow();
    row.insertCell().textContent = k.replace(/_/g, ' ');
    const cell = row.insertCell();
    cell.textContent = valueText(v);
    cell.title = JSON.stringify(v);
  }
  $('units').textContent = 'Lengths and coordinates in ' + data.units + ' (world frame); t along the motion from 0 to 1.';
  $('answer').textContent = JSON.stringify(data.answer, null, 1);
  $('command').textContent = data.command || '(not recorded)';
  if (data.notes && data.notes.length) {
    $('notes-section').hidden = false;
    for (const n of data.notes) $('notes').appendChild(document.createElement('li')).textContent = n;
  }
}

function legend(layers, redraw) {
  const ul = $('legend');
  const item = (color) => {
    const li = ul.appendChild(document.createElement('li'));
    const sw = li.appendChild(document.createElement('span'));
    sw.className = 'swatch';
    sw.style.background = color;
    return li;
  };
  for (const b of data.bodies) {
    const li = item(b.color);
    let text = b.name + ': ' + b.spec + ' (' + b.vertices.length + ' vertices, ' + b.faces.length + ' faces';
    if (b.pieces) text += ', ' + b.pieces.length + (b.pieces.length > 1 ? ' convex pieces, coloured one by one' : ' convex piece');
    li.appendChild(document.createTextNode(text + ')'));
  }
  for (const L of layers) {
    const li = item(L.data.color);
    const label = li.appendChild(document.createElement('label'));
    const box = label.appendChild(document.createElement('input'));
    box.type = 'checkbox';
    box.checked = L.on;
    box.addEventListener('change', () => {
      L.on = box.checked;
      redraw();
    });
    const when = L.data.frame === null ? '' : ' (at the time of contact)';
    label.appendChild(document.createTextNode(' ' + L.data.label + when));
  }
}

try {
  main();
} catch (e) {
  window.polycdFail(String((e && e.stack) || e));
}
