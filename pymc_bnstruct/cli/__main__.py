"""``python -m pymc_bnstruct.cli``: the ``bnstruct`` command."""

from .app import main

raise SystemExit(main())
