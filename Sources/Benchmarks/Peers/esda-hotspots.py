"""PySAL peer for `entitystream-bench hotspots`: the same Gi* as the engine
(fixed distance band, binary weights, the feature itself included) on the
same points, timed in two parts: the weights and G_Local.

Usage: python3 esda-hotspots.py POINTS_CSV THRESHOLD Z_OUT
POINTS_CSV has a header and columns x,y,value. Prints one JSON line:
{"weights": s, "glocal": s, "cpu": s, "n": n, "islands": k} (wall
seconds for the two parts, CPU seconds for both); writes the z-scores
(float64, native byte order) to Z_OUT.
"""
import json
import sys
import time
import warnings

import numpy as np

warnings.filterwarnings("ignore")
from esda.getisord import G_Local  # noqa: E402
from libpysal.weights import DistanceBand  # noqa: E402


def main(path: str, threshold: float, out: str) -> None:
    data = np.loadtxt(path, delimiter=",", skiprows=1)
    points, y = data[:, :2], data[:, 2]
    start, cpu_start = time.perf_counter(), time.process_time()
    w = DistanceBand(points, threshold=threshold, binary=True, silence_warnings=True)
    built = time.perf_counter()
    g = G_Local(y, w, transform="B", star=True, permutations=0)
    done, cpu_done = time.perf_counter(), time.process_time()
    np.asarray(g.Zs, dtype=np.float64).tofile(out)
    print(json.dumps({"weights": built - start, "glocal": done - built, "cpu": cpu_done - cpu_start, "n": int(len(y)), "islands": len(w.islands)}))


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]), sys.argv[3])
