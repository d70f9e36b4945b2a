"""pyproj peer of `entitystream-bench reproject`: transform the points of a file.

    python3 pyproj-transform.py POINTS SOURCE TARGET OUTPUT

POINTS holds the x values then the y values as little-endian doubles (two
arrays of equal length); SOURCE and TARGET are SRSs such as "EPSG:2913".
The transformer is made before timing (PROJ's database lookup, as
entitystream's operation pool does once), then one vectorised
`Transformer.transform` of numpy arrays in traditional GIS order
(`always_xy=True`, x = easting/longitude) is timed. The result is written to
OUTPUT in the same layout, for the benchmark to compare with its own.
Prints "<wall seconds> <CPU seconds> <count>" on stdout.
"""
import sys
import time

import numpy
from pyproj import Transformer

points_path, source, target, output_path = sys.argv[1:5]
values = numpy.fromfile(points_path, dtype="<f8")
count = len(values) // 2
xs, ys = values[:count].copy(), values[count:].copy()
transformer = Transformer.from_crs(source, target, always_xy=True)
transformer.transform(xs[:10], ys[:10])  # the operation chosen before timing

start = time.perf_counter()
cpu_start = time.process_time()
out_x, out_y = transformer.transform(xs, ys)
elapsed = time.perf_counter() - start
cpu = time.process_time() - cpu_start

numpy.concatenate([numpy.asarray(out_x, dtype="<f8"), numpy.asarray(out_y, dtype="<f8")]).tofile(output_path)
print(f"{elapsed:.6f} {cpu:.6f} {count}")
