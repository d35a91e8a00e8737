"""``python -m bgzero.engine.bearoff``: rebuild both bear-off databases, print the times, and cache them."""

import time

from bgzero.engine.bearoff import one_sided, two_sided

for name, module in (("one-sided", one_sided), ("two-sided", two_sided)):
    start = time.perf_counter()
    database = module.build()
    built = time.perf_counter() - start
    module.save(database, module.cache_path())
    print(f"built the {name} bear-off database in {built:.2f} s; saved to {module.cache_path()}")
