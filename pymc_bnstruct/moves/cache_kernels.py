"""Numba kernels of the hashed family-score cache.

A family is a child and a parent set; its value is ``local score + log prior``. Values
are computed on demand by the score engine (:func:`pymc_bnstruct.scores.kernels.count_and_score`)
and kept in a fixed-size, set-associative hash table keyed by ``(child, parent bitset)``,
so any number of variables works (bitsets have ``ceil(n / 64)`` words). The table never
grows: when all ``PROBE`` slots of a key's window are taken, one of them is overwritten
(round robin), so memory stays bounded and a missing value is simply recomputed.

Every kernel receives the cache as one :class:`CacheEngine` ``E`` (built by
:class:`~pymc_bnstruct.moves.ScoreCache`): the data and score the engine needs, the hash
table and scratch buffers. ``slot_child[s] == -1`` marks an empty slot. ``stats`` holds
``[lookups, computed, clock, filled]``. The prior is ``log_prior_by_size[k]`` for a family
with ``k`` parents plus ``log_edge_weight[u, child]`` for each parent ``u`` (a ``(0, 0)``
array when the prior is size-based, e.g. no :class:`~pymc_bnstruct.priors.EdgeBeliefs`).
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from ..jit import inner, wrapping_add, wrapping_mul
from ..scores.kernels import count_and_score


class CacheEngine(NamedTuple):
    """The family-score cache as its kernels receive it (numba reads the fields by name)."""

    #: ``(n_vars, n_samples)`` data codes (interventional data: then ``n_vars`` flag rows, see
    #: ``DiscreteData.engine_columns``).
    columns: np.ndarray
    #: ``int64`` number of states of every variable.
    arities: np.ndarray
    #: :attr:`pymc_bnstruct.scores.Score.kind` (BDeu, K2, BIC).
    score_kind: np.int64
    #: The score's parameter (e.g. BDeu's equivalent sample size).
    score_param: np.float64
    #: ``log_prior_by_size[k]``: log prior of a family with ``k`` parents.
    log_prior_by_size: np.ndarray
    #: ``log_edge_weight[u, v]``: log prior of the edge ``u -> v`` (shape ``(0, 0)``: none).
    log_edge_weight: np.ndarray
    #: Hash table: child of each slot (-1: empty), parent bitset, family value.
    slot_child: np.ndarray
    slot_bits: np.ndarray
    slot_value: np.ndarray
    #: ``[lookups, computed, clock, filled]`` (indices ``STAT_*``).
    stats: np.ndarray
    #: Scratch of the score engine: per-row keys, counts, parent list.
    key_buf: np.ndarray
    count_buf: np.ndarray
    parent_buf: np.ndarray


# slots probed per key (a window of consecutive slots)
PROBE = 8

STAT_LOOKUPS = 0
STAT_COMPUTED = 1
STAT_CLOCK = 2
STAT_FILLED = 3

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_ONE = np.uint64(1)


@nb.njit(cache=True, inline="always")
def _mix(z):
    """splitmix64 finaliser: a bijective 64-bit mixer."""
    z = wrapping_mul(z ^ (z >> np.uint64(30)), _M1)  # wrapping_*: no overflow warnings without JIT
    z = wrapping_mul(z ^ (z >> np.uint64(27)), _M2)
    return z ^ (z >> np.uint64(31))


@inner
def family_hash(child, bits):
    """64-bit hash of ``(child, parent bitset)``."""
    h = _mix(wrapping_add(wrapping_mul(np.uint64(child), _GOLDEN), _GOLDEN))
    for w in range(bits.shape[0]):
        h = _mix(h ^ bits[w])
    return h


@inner
def bits_to_parents(bits, out):
    """Write the members of a bitset into ``out`` (ascending); return their number."""
    k = 0
    for w in range(bits.shape[0]):
        x = bits[w]
        b = 0
        while x != 0:
            if x & _ONE:
                out[k] = w * 64 + b
                k += 1
            x >>= _ONE
            b += 1
    return k


@nb.njit(cache=True, inline="always")
def same_row(table, row, bitset):
    """Whether ``table[row]`` equals ``bitset`` word for word (a stored parent set against a query)."""
    for w in range(bitset.shape[0]):
        if table[row, w] != bitset[w]:
            return False
    return True


@inner
def family_score(E, child, bits):
    """``local score + log prior`` of the family ``(child, bits)``, from the cache or computed."""
    slot_child = E.slot_child
    slot_bits = E.slot_bits
    slot_value = E.slot_value
    stats = E.stats
    cap = slot_child.shape[0]
    mask = cap - 1
    n_words = bits.shape[0]
    stats[STAT_LOOKUPS] += 1
    base = np.int64(family_hash(child, bits) & np.uint64(mask))
    free = -1
    for t in range(PROBE):
        s = (base + t) & mask
        c = slot_child[s]
        if c == child and same_row(slot_bits, s, bits):
            return slot_value[s]
        elif c < 0 and free < 0:
            free = s
    # a miss: count the family once through the score engine
    parents = E.parent_buf
    k = bits_to_parents(bits, parents)
    value = count_and_score(E.columns, E.arities, child, parents, k, E.score_kind, E.score_param, E.key_buf,
                         E.count_buf) + E.log_prior_by_size[k]
    if E.log_edge_weight.shape[0] > 0:
        for t in range(k):
            value += E.log_edge_weight[parents[t], child]
    stats[STAT_COMPUTED] += 1
    if free < 0:  # window full: overwrite one slot, round robin
        free = (base + stats[STAT_CLOCK] % PROBE) & mask
        stats[STAT_CLOCK] += 1
    else:
        stats[STAT_FILLED] += 1
    slot_child[free] = child
    for w in range(n_words):
        slot_bits[free, w] = bits[w]
    slot_value[free] = value
    return value


@nb.njit(cache=True)
def family_score_list(E, child, parents, n_words, tmp):
    """:func:`family_score` of a parent list (int64 array of indices); ``tmp`` is a scratch bitset."""
    for w in range(n_words):
        tmp[w] = 0
    for t in range(parents.shape[0]):
        p = parents[t]
        tmp[p >> 6] |= _ONE << np.uint64(p & 63)
    return family_score(E, child, tmp)


@nb.njit(cache=True)
def graph_score(E, pbits):
    """Sum of the family values of a graph given as ``(n, n_words)`` parent bitsets."""
    total = 0.0
    for v in range(pbits.shape[0]):
        total += family_score(E, v, pbits[v])
    return total


@inner
def many_family_scores(E, children, bitsets, out):
    """``out[f] = family_score(children[f], bitsets[f])`` for every row."""
    for f in range(children.shape[0]):
        out[f] = family_score(E, children[f], bitsets[f])


@nb.njit(cache=True)
def forget_families(E, changed_bits):
    """Empty every slot whose family holds a variable of the bitset ``changed_bits`` (as child
    or parent): after those columns of ``E.columns`` were rewritten (imputed cells), the
    next lookup recomputes them. Returns the number of slots emptied."""
    slot_child, slot_bits = E.slot_child, E.slot_bits
    n_words = changed_bits.shape[0]
    emptied = 0
    for s in range(slot_child.shape[0]):
        c = slot_child[s]
        if c < 0:
            continue
        hit = (changed_bits[c >> 6] >> np.uint64(c & 63)) & _ONE
        for w in range(n_words):
            if slot_bits[s, w] & changed_bits[w]:
                hit = _ONE
        if hit:
            slot_child[s] = -1
            emptied += 1
    E.stats[STAT_FILLED] -= emptied
    return emptied
