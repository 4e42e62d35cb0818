"""`python -m tack.julia render [DIR]` | `python -m tack.julia validate FILE...`."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m tack.julia", description=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("render", help="write julia/kernels/<op>.jl for every tack.ops op")
    r.add_argument("dir", nargs="?", default="julia/kernels", type=Path)
    v = sub.add_parser("validate", help="check Julia kernel files without running Julia")
    v.add_argument("files", nargs="+", type=Path)
    args = p.parse_args(argv)
    if args.cmd == "render":
        from .render_ops import write_all

        if not args.dir.is_dir():
            p.error(f"{args.dir} is not a directory")
        for path in write_all(args.dir):
            print(f"wrote {path}")
        return 0
    from .validate import main as validate

    return validate(args.files)


if __name__ == "__main__":
    sys.exit(main())
