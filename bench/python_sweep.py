"""A million-point sweep into NumPy arrays through the Python module, timed.

Run: PYTHONPATH=build/python python3 bench/python_sweep.py [REPEATS]
The grid is bench_engine.cpp's sweep_million: 1 device x 1 model x 256 batches x 4,096 contexts.
Prints the median and the spread of the wall time of decodesim.sweep, which includes the engine,
the column arrays and the per-deployment string columns.
"""

import statistics
import sys
import time

import decodesim

repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 5
times = []
for _ in range(repeats):
    start = time.perf_counter()
    table = decodesim.sweep(hardware="h100-sxm", model="llama-3.1-8b", batch="1:256:+1", context="1:131072:+32")
    times.append(time.perf_counter() - start)
points = len(table["batch"])
median = statistics.median(times)
print(f"{points} points: median {median * 1e3:.0f} ms ({points / median / 1e6:.2f} M points/s), "
      f"range {min(times) * 1e3:.0f}-{max(times) * 1e3:.0f} ms over {repeats} runs")
