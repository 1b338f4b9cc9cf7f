#!/usr/bin/env python3
"""Record NumPy 2's answers for cuarr's differential spec of its numerics.

Writes spec/data/numpy_numerics.lua (a Lua file returning a table), which
spec/numpy_numerics_spec.lua checks cuarr against on host and device arrays.  CI has no
Python: run this once by hand after changing the cases, and check its output in.

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install numpy
    /tmp/venv/bin/python tools/numpy_oracle/record_numerics.py

The cases: the promotion of n-ary functions (concatenate, stack, select, where) over dtype
triples of all twelve dtypes; integer powers (every integer dtype and bool as the base,
positive and negative exponents, Lua numbers and arrays); linspace with integer dtypes.  Each
case records the result's dtype and values, or the error NumPy raises.
"""
import itertools
import os
import random
import sys

import numpy as np

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64"]
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "spec", "data",
                   "numpy_numerics.lua")


def lua(v):
    """A Python value (from NumPy's results) as Lua source."""
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        v = int(v)
        if v == -2**63:
            return "math.mininteger"
        return str(v)
    if isinstance(v, (float, np.floating)):
        v = float(v)
        if v != v:
            return "0/0"
        if v in (float("inf"), float("-inf")):
            return "1/0" if v > 0 else "-1/0"
        return repr(v) if "." in repr(v) or "e" in repr(v) else repr(v) + ".0"
    if isinstance(v, str):
        return '"' + v + '"'
    if isinstance(v, (list, tuple)):
        return "{" + ", ".join(lua(x) for x in v) + "}"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {lua(x)}" for k, x in v.items()) + "}"
    raise TypeError(type(v))


def outcome(fn):
    """{dtype=, values=} of NumPy's result, or {error=} with the exception's class name."""
    try:
        r = np.asarray(fn())
    except Exception as e:  # the kind of error is the answer
        return {"error": type(e).__name__}
    return {"dtype": str(r.dtype), "values": r.ravel().tolist()}


def operand(dtype, values):
    return np.array(values, dtype=dtype)


def promotion_cases():
    rng = random.Random(28)
    cases = []
    # values every dtype holds exactly: 0 and 1 (False and True for bool)
    vals = [1, 0]
    for ts in itertools.product(DTYPES, repeat=3):
        arrays = lambda: [operand(t, vals) for t in ts]
        cases.append({"fn": "concatenate", "dtypes": list(ts),
                      **outcome(lambda: np.concatenate(arrays()))})
    for ts in rng.sample(list(itertools.product(DTYPES, repeat=3)), 300):
        arrays = lambda: [operand(t, vals) for t in ts]
        cases.append({"fn": "stack", "dtypes": list(ts), **outcome(lambda: np.stack(arrays()))})
    for ts in rng.sample(list(itertools.product(DTYPES, repeat=4)), 300):
        arrays = lambda: [operand(t, vals) for t in ts]
        cases.append({"fn": "vstack", "dtypes": list(ts), **outcome(lambda: np.vstack(arrays()))})
    conds = [np.array([True, False]), np.array([False, True]), np.array([True, True])]
    for n in (2, 3):
        every = list(itertools.product(DTYPES, repeat=n))
        for ts in (every if n == 2 else rng.sample(every, 300)):
            chosen = lambda: [operand(t, vals) for t in ts]
            cases.append({"fn": "select", "dtypes": list(ts),
                          **outcome(lambda: np.select(conds[:n], chosen()))})
    for ts in itertools.product(DTYPES, repeat=2):
        cases.append({"fn": "where", "dtypes": list(ts),
                      **outcome(lambda: np.where(conds[0], operand(ts[0], vals),
                                                 operand(ts[1], [0, 1])))})
    return cases


def signed(t):
    return t.startswith("int")


def power_cases():
    cases = []
    bases = {t: ([0, 1, 2, -1, -2] if signed(t) else [0, 1, 2, 3]) for t in INTS}
    bases["bool"] = [True, False]
    # a Lua number as the exponent
    for t, b in bases.items():
        for e in (0, 1, 2, 3, -1, -2):
            cases.append({"base": t, "base_values": b, "exponent": e,
                          **outcome(lambda: np.power(operand(t, b), e))})
    # arrays both sides, every pair of integer (and bool) dtypes
    for t, e_t in itertools.product(list(bases), repeat=2):
        b = bases[t]
        for evals in ([0, 1, 2, 3, 1], [2, 0, 1, -1, 3]):
            if (not signed(e_t) and min(evals) < 0) or e_t == "bool":
                evals = [min(abs(v), 1) for v in evals] if e_t == "bool" else [abs(v) for v in evals]
                evals = [bool(v) for v in evals] if e_t == "bool" else evals
            bb = (b * 5)[:5]
            cases.append({"base": t, "base_values": bb, "exponent_dtype": e_t,
                          "exponent_values": evals,
                          **outcome(lambda: np.power(operand(t, bb), operand(e_t, evals)))})
    # a Lua number as the base
    for e_t in INTS:
        for evals in ([0, 1, 2], [1, -1, 2]):
            if not signed(e_t):
                evals = [abs(v) for v in evals]
            for base in (2, -1, 1):
                cases.append({"base_scalar": base, "exponent_dtype": e_t,
                              "exponent_values": evals,
                              **outcome(lambda: np.power(base, operand(e_t, evals)))})
    return cases


def linspace_cases():
    rng = random.Random(5)
    cases = []
    for t in INTS:
        for _ in range(40):
            lo = 0 if not signed(t) else -20
            start = rng.choice([rng.randint(lo, 20), rng.randint(lo * 4, 80) / 4])
            stop = rng.choice([rng.randint(lo, 20), rng.randint(lo * 4, 80) / 4])
            num = rng.randint(0, 9)
            endpoint = rng.choice([True, False])
            cases.append({"start": start, "stop": stop, "num": num, "dtype": t,
                          "endpoint": endpoint,
                          **outcome(lambda: np.linspace(start, stop, num, endpoint=endpoint,
                                                        dtype=t))})
    for start, stop, num in ((4, -3, 5), (0, 10, 4), (-7, 7, 6), (10, 0, 7)):
        for endpoint in (True, False):
            cases.append({"start": start, "stop": stop, "num": num, "dtype": "int32",
                          "endpoint": endpoint,
                          **outcome(lambda: np.linspace(start, stop, num, endpoint=endpoint,
                                                        dtype="int32"))})
    return cases


def main():
    if not np.__version__.startswith("2."):
        sys.exit(f"NumPy 2 is the oracle; this is {np.__version__}")
    parts = {"promotion": promotion_cases(), "power": power_cases(),
             "linspace": linspace_cases()}
    with open(OUT, "w") as f:
        f.write(f"-- Recorded by tools/numpy_oracle/record_numerics.py from NumPy {np.__version__};"
                " do not edit.\n")
        f.write("return {\n")
        for name, cases in parts.items():
            f.write(f"  {name} = {{\n")
            for c in cases:
                f.write("    " + lua(c) + ",\n")
            f.write("  },\n")
        f.write("}\n")
    print(f"{OUT}: " + ", ".join(f"{len(c)} {n}" for n, c in parts.items()))


if __name__ == "__main__":
    main()
