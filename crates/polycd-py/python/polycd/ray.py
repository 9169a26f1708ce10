"""Batch queries on a Ray cluster (optional extra: ``pip install ./crates/polycd-py[ray]``).

A dataset of query lines in the batch format (JSON lines, as ``polycd batch`` reads them) is
mapped over the cluster with Ray Data's ``map_batches``; every block of lines is answered by
the Rust side's own batch loop (:func:`polycd.batch`, the CLI library's parser and
serialiser), so each answer line is byte for byte what ``polycd batch`` writes, and the
answers come back in input order.

    import ray, polycd.ray
    ray.init(address="ray://head:10001")          # or ray.init() for a local cluster
    polycd.ray.run_batch("queries.jsonl", "answers.jsonl")

Scope today: JSON-lines input with shapes inline (``{"shape": spec}``, ``{"vertices": ...}``)
or as files every worker can read; each block keeps the batch loop's own per-block shape
cache. Parquet input and shapes shipped once per worker through the object store are not
implemented.
"""

from typing import Iterable, List, Optional, Union

import numpy as np

from ._polycd import batch as _batch


def _answer_block(block):
    lines = [str(x) for x in block["text"]]
    out = _batch("".join(line + "\n" for line in lines)).splitlines()
    if len(out) != len(lines):
        raise RuntimeError(f"polycd.batch answered {len(out)} lines for {len(lines)}")
    return {"text": np.array(out, dtype=object)}


def answer_dataset(ds, batch_size: int = 4096):
    """Maps a Ray dataset with a ``text`` column of query lines to one of answer lines."""
    return ds.map_batches(_answer_block, batch_size=batch_size, batch_format="numpy")


def run_batch(
    source: Union[str, Iterable[str]],
    output: Optional[str] = None,
    batch_size: int = 4096,
) -> List[str]:
    """Answers query lines (a JSON-lines path, or an iterable of lines) on the connected Ray
    cluster; returns the answer lines in input order and writes them to ``output`` (one per
    line) when given. Call ``ray.init(...)`` first."""
    import ray

    ctx = ray.data.DataContext.get_current()
    ctx.execution_options.preserve_order = True
    if isinstance(source, str):
        with open(source, encoding="utf-8") as f:
            lines = f.read().splitlines()
    else:
        lines = list(source)
    ds = ray.data.from_items([{"text": line} for line in lines])
    answers = [row["text"] for row in answer_dataset(ds, batch_size).iter_rows()]
    if output is not None:
        with open(output, "w", encoding="utf-8") as f:
            f.writelines(a + "\n" for a in answers)
    return answers
