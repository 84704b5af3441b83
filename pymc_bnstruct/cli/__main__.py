"""``python -m pymc_bnstruct.cli``: the ``bnstruct`` command."""

from . import main

if __name__ == "__main__":
    raise SystemExit(main())
