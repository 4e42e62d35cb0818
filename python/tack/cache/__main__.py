"""`python -m tack.cache`: where the disk cache is and what it holds; clear or prune it."""
from __future__ import annotations

import argparse
import sys

from .config import default_directory, mode
from .storage import clear, info, prune


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tack.cache",
                                 description="Tack's disk cache of compiled kernels.")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--info", action="store_true", help="where the cache is and what it holds "
                   "(the default)")
    g.add_argument("--clear", action="store_true", help="delete every cached kernel")
    g.add_argument("--prune", action="store_true", help="shrink to the size limit now")
    g.add_argument("--path", action="store_true", help="print the cache directory")
    a = ap.parse_args(argv)
    if a.path:
        print(default_directory())
        return 0
    if a.clear or a.prune:
        if mode() == "off":
            print("the cache is off (TACK_CACHE=off); nothing done")
            return 0
        if a.clear:
            print(f"removed {clear()} files from {default_directory()}")
        else:
            print(f"removed {prune()} files from {default_directory()}")
        return 0
    i = info()
    print(f"directory: {i['directory']}\nmode:      {i['mode']}  (TACK_CACHE)\n"
          f"state:     {i['state']}\nlimit:     "
          f"{_human(i['max_size']) if i['max_size'] > 0 else 'unbounded'}  (TACK_CACHE_SIZE)\n"
          f"entries:   {i['entries']}, {_human(i['bytes'])}")
    for kind, k in sorted(i["kinds"].items()):
        print(f"  {kind}: {k['entries']} entries, {_human(k['bytes'])}")
    return 0


def _human(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


if __name__ == "__main__":
    sys.exit(main())
