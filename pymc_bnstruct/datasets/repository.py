"""The reference networks shipped with the package (BIF files from the bnlearn repository)."""

from __future__ import annotations

import importlib.resources
from importlib.resources.abc import Traversable
from pathlib import Path

from ..networks import BayesianNetwork, read_bif

__all__ = ["list_networks", "load_network"]

_SUFFIX = ".bif.gz"


def _networks_dir() -> Traversable | Path:
    if __package__:
        return importlib.resources.files(__package__).joinpath("networks")
    return Path(__file__).with_name("networks")  # module loaded by file path


def list_networks() -> list[str]:
    """Names of the networks shipped with the package, sorted.

    Returns
    -------
    list of str
        Valid arguments for :func:`load_network`.

    Examples
    --------
    >>> "asia" in bns.datasets.list_networks()
    True
    """
    return sorted(
        entry.name[: -len(_SUFFIX)]
        for entry in _networks_dir().iterdir()
        if entry.name.endswith(_SUFFIX)
    )


def load_network(name: str) -> BayesianNetwork:
    """Load one of the reference networks shipped with the package.

    The files come from the bnlearn Bayesian Network Repository
    (https://www.bnlearn.com/bnrepository/). Sizes (variables / edges):
    asia 8/8, cancer 5/4, earthquake 5/4, survey 6/6, sachs 11/17,
    child 20/25, insurance 27/52, alarm 37/46, hailfinder 56/66,
    link 724/1125.

    Parameters
    ----------
    name : str
        Network name, case-insensitive (see :func:`list_networks`).

    Returns
    -------
    BayesianNetwork
        Named ``name`` (lower case).

    Raises
    ------
    ValueError
        If no network of that name is shipped; the message lists the
        available ones.

    Examples
    --------
    >>> net = bns.datasets.load_network("asia")
    >>> net
    BayesianNetwork('asia', 8 variables, 8 edges)
    >>> net.sample(200, random_seed=1).shape
    (200, 8)
    """
    available = list_networks()
    key = str(name).strip().lower()
    if key not in available:
        raise ValueError(f"unknown network {name!r}; available networks: {', '.join(available)}")
    raw = _networks_dir().joinpath(key + _SUFFIX).read_bytes()
    return read_bif(raw, name=key)
