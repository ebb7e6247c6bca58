"""__main__.py: `python3 -m mixsolve info` prints what the `mixsolve info` command prints."""
import sys

from . import errors


def main(argv):
    if len(argv) != 1 or argv[0] not in ("info", "-h", "--help"):
        print("usage: python3 -m mixsolve info", file=sys.stderr)
        return 2
    if argv[0] != "info":
        print("usage: python3 -m mixsolve info\nPrints what `mixsolve info` prints, from the "
              "libmixsolve this package loads.")
        return 0
    try:
        from ._info import info
        info()
    except errors.LibraryNotFoundError as e:
        print("mixsolve: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
