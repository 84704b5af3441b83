"""Writes mixed.csv, the data of the deal reference (run once; see README.md here)."""

import numpy as np
import pandas as pd

rng = np.random.default_rng(2001)
n = 60
a = rng.choice(["a0", "a1"], n)
b = np.where(rng.random(n) < np.where(a == "a1", 0.7, 0.2), "b1", rng.choice(["b0", "b2"], n))
c = rng.choice(["c0", "c1"], n)
x = rng.normal(size=n) + 1.2 * (a == "a1") + 0.5
y = 0.7 * x - 0.8 * (b == "b1") + rng.normal(scale=0.8, size=n)
z = 0.5 * y + 0.9 * (c == "c1") + rng.normal(scale=0.6, size=n) - 1.0
pd.DataFrame({"a": a, "b": b, "c": c, "x": x.round(6), "y": y.round(6), "z": z.round(6)}).to_csv(
    "mixed.csv", index=False)
