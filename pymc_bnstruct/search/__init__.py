"""Greedy structure search: hill climbing and Steck's skeleton operator.

- :func:`hill_climb` — add / delete / reverse with cached delta scores, tabu list,
  random restarts and (optionally) the skeleton operator as an extra move. Samplers use
  it to start chains at a good graph (``initval="greedy"``).
- :func:`skeleton_search` — Steck's strategy: skeleton operator, one forward inclusion,
  backward elimination, repeated until a DAG repeats.
- :func:`skeleton_operator`, :func:`collider_scores` — the operator alone and the
  collider scores it orients by.
- :func:`search_space`, :class:`SearchSpace` — candidate parents learned by expanding a
  start skeleton until the best DAG fits (Kuipers, Suter & Moffa 2022), for score tables on
  large networks; on data with missing cells it learns them on completions the imputation
  sweep draws, and :func:`drawn_completion` gives the last of those.
- :func:`refined_map` — hill climbing or tabu search started at a B-RAI tree's MAP DAG,
  labelled as post-processing.
- :class:`SearchResult` — the DAG, its score, the score trace, the number of family
  evaluations, and ``to_cpdag()``.
"""

__stage__ = "algorithms"  # where this unit sits in the pipeline (tests/test_layout.py)

from .hill_climb import hill_climb
from .refine import refined_map
from .result import SearchResult
from .skeleton import ColliderScores, collider_scores, skeleton_operator, skeleton_search
from .space import SearchSpace, drawn_completion, search_space

__all__ = ["hill_climb", "skeleton_search", "skeleton_operator", "collider_scores", "ColliderScores", "SearchResult",
           "search_space", "SearchSpace", "drawn_completion", "refined_map"]
