"""Batch queries on a Ray cluster (optional extra: ``pip install ./crates/polycd-py[ray]``).

A dataset of queries in the batch format is mapped over the cluster with Ray Data's
``map_batches``; every block is answered by the Rust side's own batch loop (the CLI
library's parser, shape cache and serialiser), so each answer line is byte for byte what
``polycd batch`` writes, and the answers come back in input order.

    import ray, polycd, polycd.ray
    ray.init(address="ray://head:10001")          # or ray.init() for a local cluster
    rock = polycd.ConvexPolyhedron.from_spec("ellipsoid:1,2,3:1000:7")
    polycd.ray.run_batch("queries.parquet", "answers.jsonl", shapes={"rock": rock})

Input (``source``):

* **JSON lines** (a ``.jsonl`` / ``.json`` / other path, or an iterable of lines): one query
  line each, exactly as ``polycd batch`` reads them.
* **Parquet** (a ``.parquet`` path or a directory of them, read with
  ``ray.data.read_parquet``; ``format="parquet"`` forces it): one column per batch key, one
  row per query line. A null cell is an absent key. The columns:

  ======================  ==============================================================
  column                  type
  ======================  ==============================================================
  ``id``                  any scalar (int, float, string): echoed
  ``a``, ``b``            string: the JSON text of a shape object, e.g.
                          ``'{"shape": "icosphere:2"}'``, ``'{"ref": "rock"}'``,
                          ``'{"kind": "mesh", "file": "part.obj"}'``
  ``pose_a``, ``pose_b``, list<double> of 7 ``[tx, ty, tz, qw, qx, qy, qz]`` (the batch
  ``pose_a1``,            format's order, quaternion scalar first), or a string: the JSON
  ``pose_b1``             text of a pose object ``{"translation", "rotation"}``
  ``query``,              string (``"intersect"``, ``"distance"``, ``"directional"``,
  ``algorithm``           ``"manifold"``, ``"toc"``, ``"point"``, ``"ray"``; ``"auto"``, …)
  ``direction``,          list<double> of 3
  ``point``, ``origin``
  ``margin``,             double
  ``threshold``
  ``reduce``              bool
  ======================  ==============================================================

  Each row becomes the JSON line with those keys (poses as ``{"translation": row[:3],
  "rotation": row[3:]}``); any other column is passed on as a key, which the batch format
  refuses with an error answer for that row, as ``polycd batch`` would.

Shapes shipped once (``shapes={name: ConvexPolyhedron}``): the dictionary is put in the
object store once (``ray.put``) and each worker (an actor of the pool, ``concurrency``
of them: by default the cluster's CPUs less one) fetches and unpickles it once, then answers every block against it: lines name
those shapes with ``{"ref": name}``. The answers equal ``polycd batch``'s on the define
lines ``{"define": name, "shape": <shape.to_json()>}`` followed by the query lines (minus
the define lines' own answers). Define lines inside the dataset are not shared between
workers: define shapes with ``shapes=``.
"""

import json
import os
from typing import Dict, Iterable, List, Optional, Union

import numpy as np

from ._polycd import BatchSession as _BatchSession
from ._polycd import batch as _batch

#: The keys whose Parquet cells are JSON text of an object (shapes) or a pose.
_SHAPE_KEYS = ("a", "b")
_POSE_KEYS = ("pose_a", "pose_b", "pose_a1", "pose_b1")


def _cell(key, value, row):
    """A Parquet cell as the value of its batch key (see the module docstring)."""
    if key in _SHAPE_KEYS:
        if isinstance(value, str):
            try:
                return json.loads(value)
            except json.JSONDecodeError as e:
                raise ValueError(f"row {row}: column {key!r}: not JSON text of a shape object ({e})") from None
        return value
    if key in _POSE_KEYS:
        if isinstance(value, str):
            try:
                return json.loads(value)
            except json.JSONDecodeError as e:
                raise ValueError(f"row {row}: column {key!r}: not JSON text of a pose object ({e})") from None
        v = list(value)
        if len(v) != 7:
            raise ValueError(
                f"row {row}: column {key!r}: a pose is 7 numbers [tx, ty, tz, qw, qx, qy, qz], got {len(v)}"
            )
        return {"translation": [float(x) for x in v[:3]], "rotation": [float(x) for x in v[3:]]}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [x.item() if hasattr(x, "item") else x for x in value]
    if hasattr(value, "item"):
        return value.item()
    return value


def row_to_line(row: Dict, index: int = 0) -> str:
    """One Parquet row (a dict of column → value) as its batch query line (JSON text)."""
    obj = {k: _cell(k, v, index) for k, v in row.items() if v is not None}
    return json.dumps(obj)


def _parquet_block(block):
    rows = block.to_pylist()
    return {"text": np.array([row_to_line(r, i) for i, r in enumerate(rows)], dtype=object)}


def _answer_block(block):
    lines = [str(x) for x in block["text"]]
    out = _batch("".join(line + "\n" for line in lines)).splitlines()
    if len(out) != len(lines):
        raise RuntimeError(f"polycd.batch answered {len(out)} lines for {len(lines)}")
    return {"text": np.array(out, dtype=object)}


class _SessionAnswerer:
    """A Ray Data actor: the shipped shapes, fetched once, and one batch session over them."""

    def __init__(self, shapes):
        import ray

        if isinstance(shapes, ray.ObjectRef):
            shapes = ray.get(shapes)
        self.session = _BatchSession(shapes)

    def __call__(self, block):
        lines = [str(x) for x in block["text"]]
        out = self.session.answer(lines)
        return {"text": np.array(out, dtype=object)}


def answer_dataset(ds, batch_size: int = 4096, shapes: Optional[Dict] = None, concurrency: Optional[int] = None):
    """Maps a Ray dataset with a ``text`` column of query lines to one of answer lines.

    With ``shapes`` ({name: ConvexPolyhedron}) the shapes are put in the object store once and
    answered by a pool of ``concurrency`` actors (default: the cluster's CPUs less one, which
    reads and converts the input), each fetching them once."""
    if not shapes:
        return ds.map_batches(_answer_block, batch_size=batch_size, batch_format="numpy")
    import ray

    ref = ray.put(dict(shapes))
    if concurrency is None:
        # One CPU is left to the tasks that read and convert the input blocks: actors holding
        # every CPU would starve them.
        concurrency = max(1, int(ray.cluster_resources().get("CPU", 1)) - 1)
    return ds.map_batches(
        _SessionAnswerer,
        batch_size=batch_size,
        batch_format="numpy",
        fn_constructor_args=(ref,),
        concurrency=concurrency,
    )


def _is_parquet(source, format):
    if format is not None:
        if format not in ("parquet", "jsonl"):
            raise ValueError(f"format: expected 'parquet' or 'jsonl', got {format!r}")
        return format == "parquet"
    if not isinstance(source, (str, os.PathLike)):
        return False
    p = os.fspath(source)
    return p.endswith(".parquet") or (os.path.isdir(p) and any(f.endswith(".parquet") for f in os.listdir(p)))


def run_batch(
    source: Union[str, "os.PathLike", Iterable[str]],
    output: Optional[str] = None,
    batch_size: int = 4096,
    shapes: Optional[Dict] = None,
    format: Optional[str] = None,
    concurrency: Optional[int] = None,
) -> List[str]:
    """Answers queries (a JSON-lines or Parquet path, or an iterable of lines; see the module
    docstring) on the connected Ray cluster; returns the answer lines in input order and
    writes them to ``output`` (one per line) when given. ``shapes``: named shapes shipped
    once per worker (lines use ``{"ref": name}``). Call ``ray.init(...)`` first."""
    import ray

    ctx = ray.data.DataContext.get_current()
    ctx.execution_options.preserve_order = True
    if _is_parquet(source, format):
        ds = ray.data.read_parquet(os.fspath(source)).map_batches(
            _parquet_block, batch_size=batch_size, batch_format="pyarrow"
        )
    else:
        if isinstance(source, (str, os.PathLike)):
            with open(source, encoding="utf-8") as f:
                lines = f.read().splitlines()
        else:
            lines = list(source)
        ds = ray.data.from_items([{"text": line} for line in lines])
    answers = [row["text"] for row in answer_dataset(ds, batch_size, shapes, concurrency).iter_rows()]
    if output is not None:
        with open(output, "w", encoding="utf-8") as f:
            f.writelines(a + "\n" for a in answers)
    return answers
