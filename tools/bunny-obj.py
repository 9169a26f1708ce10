#!/usr/bin/env python3
"""Converts the npm package `bunny` (index.js: `exports.positions=[...]`, `exports.cells=[...]`)
to a Wavefront OBJ file: `v x y z` lines, then `f i j k` lines (1-based), nothing else.

Usage (in a scratch directory):
    npm pack bunny && tar xzf bunny-1.0.1.tgz
    python3 tools/bunny-obj.py package/index.js assets/models/bunny.obj
The numbers are copied as written in index.js (no rounding); the triangle orientation is kept.
"""
import json
import re
import sys


def array(src, name):
    m = re.search(r"exports\." + name + r"\s*=\s*(\[.*?\]\])", src, re.S)
    if not m:
        sys.exit(f"exports.{name} not found")
    return json.loads(m.group(1), parse_float=str, parse_int=str)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src = open(sys.argv[1], encoding="utf-8").read()
    pos, cells = array(src, "positions"), array(src, "cells")
    with open(sys.argv[2], "w", encoding="utf-8") as out:
        out.write("# Stanford bunny (Stanford 3D Scanning Repository), as packaged in npm `bunny` 1.0.1;\n")
        out.write(f"# converted by tools/bunny-obj.py: {len(pos)} vertices, {len(cells)} triangles\n")
        for p in pos:
            out.write("v " + " ".join(p) + "\n")
        for c in cells:
            out.write("f " + " ".join(str(int(i) + 1) for i in c) + "\n")
    print(f"{len(pos)} vertices, {len(cells)} triangles")


main()
