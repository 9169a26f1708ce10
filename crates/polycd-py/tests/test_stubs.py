"""The type stubs (_polycd.pyi) name every public function, class and member of the module,
and every public callable has a docstring (help() works)."""

import inspect
import pathlib
import re

import polycd

STUB = (pathlib.Path(polycd.__file__).parent / "_polycd.pyi").read_text()


def test_every_public_name_is_in_the_stubs_with_a_docstring():
    missing, undocumented = [], []
    for name in polycd.__all__:
        if name == "STATUS_NAMES":
            continue
        if not re.search(r"(class|def) %s\b|^%s:" % (name, name), STUB, re.M):
            missing.append(name)
        obj = getattr(polycd, name)
        if inspect.isclass(obj) or callable(obj):
            if not (obj.__doc__ or "").strip():
                undocumented.append(name)
        if inspect.isclass(obj) and not issubclass(obj, BaseException):
            for k in dir(obj):
                if k.startswith("_"):
                    continue
                if not re.search(r"def %s\b" % k, STUB):
                    missing.append(f"{name}.{k}")
                if not (getattr(obj, k).__doc__ or "").strip():
                    undocumented.append(f"{name}.{k}")
    assert missing == []
    assert undocumented == []
