"""rasterio peer of `entitystream-bench identify`: sample a raster at the points of a file.

    python3 rasterio-sample.py RASTER POINTS CRS

POINTS has one "x y" line per point; CRS is "raster" (points already in the
raster's CRS) or an SRS such as "EPSG:4326" (transformed first with
rasterio.warp.transform, which is PROJ, inside the timed part). The raster's
blocks are read once before timing (a warm cache, as for entitystream).
Prints "<wall seconds> <CPU seconds> <sum of band-1 values>" on stdout.
"""
import sys
import time

import rasterio
from rasterio.warp import transform

path, points_path, crs = sys.argv[1:4]
xs, ys = [], []
with open(points_path) as points:
    for line in points:
        x, y = line.split()
        xs.append(float(x))
        ys.append(float(y))

with rasterio.open(path) as dataset:
    dataset.read(1)  # warm GDAL's block cache
    start = time.perf_counter()
    cpu_start = time.process_time()
    if crs != "raster":
        xs, ys = transform(crs, dataset.crs, xs, ys)
    total = 0
    for values in dataset.sample(zip(xs, ys), indexes=1):
        total += int(values[0])
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu_start

print(f"{elapsed:.6f} {cpu:.6f} {total}")
