"""Every public name is documented and listed in the site's API reference.

The reference (docs/api/index.rst) is generated from docstrings by autosummary; a public
name without a docstring would show an empty page, and one missing from the page would not
show at all. Both fail here, before the site is built.
"""

import inspect
import re
import types
from pathlib import Path

import pytest

import pymc_bnstruct as bns

API_PAGE = Path(__file__).resolve().parents[1] / "docs" / "api" / "index.rst"
LISTED = set(re.findall(r"^   ([A-Za-z_][\w.]*)\s*$", API_PAGE.read_text(), re.M))


def _public_objects():
    """(qualified name, object) for every function and class in the package's public API."""
    seen = {}
    modules = [("", bns)] + [(name + ".", getattr(bns, name)) for name in bns.__all__
                             if isinstance(getattr(bns, name), types.ModuleType)]
    for prefix, module in modules:
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if isinstance(obj, types.ModuleType) or not (inspect.isclass(obj) or callable(obj)):
                continue  # constants (e.g. the contract's names) are documented on their module
            seen.setdefault(id(obj), (prefix + name, obj))
    return sorted(seen.values(), key=lambda item: item[0])


PUBLIC = _public_objects()


@pytest.mark.parametrize("name, obj", PUBLIC, ids=[n for n, _ in PUBLIC])
def test_public_name_has_a_docstring(name, obj):
    doc = inspect.getdoc(obj)
    assert doc and len(doc.split()) >= 3, f"{name} has no docstring (or one of fewer than three words)"


def test_shared_parameter_entries_are_filled_in():
    """``pymc_bnstruct._docs.fill_doc`` writes a shared entry where its placeholder stood,
    indented as the placeholder; no public docstring keeps a placeholder."""
    from pymc_bnstruct._docs import PARAMETERS, fill_doc

    def f():
        """Summary.

        Parameters
        ----------
        {score}
            More.
        """

    doc = inspect.getdoc(fill_doc(f))
    assert "score : Score, optional\n    Default: BDeu" in doc and doc.endswith("default_score`).\n    More.")
    placeholder = re.compile(r"^\s*\{(" + "|".join(PARAMETERS) + r")\}\s*$", re.M)
    left = [name for name, obj in PUBLIC if placeholder.search(inspect.getdoc(obj) or "")]
    assert not left, f"unfilled placeholders (decorate with fill_doc): {left}"


def test_every_top_level_name_is_in_the_api_reference():
    top = {name for name in bns.__all__
           if not name.startswith("__") and not isinstance(getattr(bns, name), types.ModuleType)}
    missing = sorted(top - LISTED)
    assert not missing, f"add to docs/api/index.rst: {missing}"


def test_the_api_reference_names_only_what_exists():
    for name in sorted(LISTED):
        obj = bns
        for part in name.split("."):
            assert hasattr(obj, part), f"docs/api/index.rst lists {name}, which does not exist"
            obj = getattr(obj, part)


# ---------------------------------------------------------------------------------------------
# Examples and References (ArviZ's standard: every public object shows a run example, and every
# object that implements a method from the literature cites it, numpy-doc style).
# ---------------------------------------------------------------------------------------------

def _resolve(name):
    obj = bns
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None  # test_the_api_reference_names_only_what_exists reports it
    return obj


LISTED_OBJECTS = sorted((name, obj) for name in LISTED if (obj := _resolve(name)) is not None)

# Plain utilities, containers and plumbing: no method from the literature to cite. They still
# need an Examples section.
REFERENCES_EXEMPT = {
    "results.example_idata": "example data for the docs",
    "results.sampling_checks.check_structure_draws": "a check of the sampler stats",
    # data handling and argument checks
    "DiscreteData": "a data container",
    "ContinuousData": "a data container",
    "as_data": "a conversion",
    "as_discrete_data": "a conversion",
    "scores.default_score": "a default choice",
    "scores.Score": "an abstract base class (the concrete scores cite their papers)",
    "scores.family_indices": "index validation",
    "priors.StructurePrior": "an abstract base class (the concrete priors cite their papers)",
    "priors.PriorProduct": "a combinator (its factors cite their papers)",
    "StructureConstraints": "validated black/white lists and an in-degree bound",
    "constraints.check_max_parents": "argument validation",
    "constraints.check_edge_lists": "argument validation",
    "learning.parse_budget": "argument parsing",
    "ForeignStepError": "an exception",
    "step_methods.register": "registration with PyMC's step-method registry",
    "SearchResult": "a result container",
    "search.refined_map": "post-processing: hill_climb (which cites its method) from a given start",
    "StructureResult": "a result container",
    "results.convert.convert": "a conversion",
    "map_dag": "reads the best DAG a result holds (the exact MAP cites its DP on ExactPosterior.map_dag)",
    "ChainAgreement": "a result container",
    "results.samc.SAMCDiagnostics": "a result container",
    "Comparison": "a result container",
    "RocCurve": "a result container",
    "PrCurve": "a result container",
    "results.sampling_checks.warn_if_chains_disagree": "a warning hook",
    "exact.estimate_memory": "arithmetic on array sizes",
    "results.weights.draw_weights": "reads stored weights",
    "results.weights.chain_weights": "normalisation",
    "order_names": "relabelling of draws",
    # datasets and interop: file formats and conversions
    "datasets.load_network": "loads a shipped file",
    "datasets.list_networks": "lists shipped files",
    "networks.read_bif": "a file-format parser",
    "networks.write_bif": "a file-format writer",
    "networks.bif_text": "a file-format writer",
    "networks.family_counts": "a count (the estimator that uses it cites its papers)",
    "networks.BayesianNetwork": "a container with ancestral sampling",
    "to_networkx": "a conversion",
    "from_networkx": "a conversion",
    "to_pgmpy": "a conversion",
    "to_dot": "a conversion",
    "to_adjacency_frame": "a conversion",
    "from_adjacency_frame": "a conversion",
    "graph.to_adjacency": "a conversion",
    "graph.adjacency_dataarray": "labelling",
    "graph.edges_to_indices": "a conversion",
    "graph.topological_order": "a textbook graph routine",
    "graph.find_cycle": "a textbook graph routine",
    "graph.is_acyclic": "a textbook graph routine",
    "graph.skeleton": "a textbook graph routine",
    "graph.transitive_closure": "a textbook graph routine",
    "plot_edge_heatmap": "a plot",
    "plot_network": "a plot",
    "plot_score_trace": "a plot",
    # the output contract and the validators: naming conventions
    "contract.edge_prob_name": "a naming convention",
    "contract.mb_prob_name": "a naming convention",
    "contract.family_names": "a naming convention",
    "contract.family_dims": "a naming convention",
    "contract.accept_rate_name": "a naming convention",
    "validation.ArgumentTypeError": "an exception",
    "validation.check_int": "argument validation",
    "validation.check_number": "argument validation",
    "validation.check_probability": "argument validation",
    "validation.check_choice": "argument validation",
    "validation.check_move_probs": "argument validation",
    "validation.read_only": "argument plumbing",
    "moves.parent_bitsets": "a bit-packing helper",
    "questions.network_tables": "a conversion",
    "questions.parameter_name": "a naming convention",
    "questions.state_dim": "a naming convention",
}

# Not yet given Examples/References (the main developer finishes these); every name here is
# skipped by both tests below, and the set only shrinks.
PENDING_EXAMPLES: set[str] = set()


def _sections(doc):
    """Numpy-doc section titles of a docstring (a title line followed by a dashed underline)."""
    lines = doc.splitlines()
    return {lines[i].strip() for i in range(len(lines) - 1)
            if lines[i].strip() and set(lines[i + 1].strip()) == {"-"}
            and len(lines[i + 1].strip()) >= len(lines[i].strip())}


def test_exempt_and_pending_names_exist():
    listed = {name for name, _ in LISTED_OBJECTS}
    assert not set(REFERENCES_EXEMPT) - listed, sorted(set(REFERENCES_EXEMPT) - listed)
    assert not PENDING_EXAMPLES - listed, sorted(PENDING_EXAMPLES - listed)


@pytest.mark.parametrize("name, obj", LISTED_OBJECTS, ids=[n for n, _ in LISTED_OBJECTS])
def test_public_name_has_examples_and_references(name, obj):
    if name in PENDING_EXAMPLES:
        pytest.skip("listed in PENDING_EXAMPLES")
    doc = inspect.getdoc(obj) or ""
    sections = _sections(doc)
    assert "Examples" in sections, f"{name}: no numpy-style 'Examples' section"
    examples = doc.split("Examples\n--------", 1)[-1]
    assert ">>> " in examples, f"{name}: its Examples section has no '>>>' line"
    if name not in REFERENCES_EXEMPT:
        assert "References" in sections, (f"{name}: no numpy-style 'References' section (cite the method, "
                                          "or add it to REFERENCES_EXEMPT with the reason)")
        refs = doc.split("References\n----------", 1)[-1]
        assert re.search(r"\b(1[89]|20)\d\d\b", refs), f"{name}: its References section cites no year"


@pytest.fixture(scope="module")
def doctest_globals():
    import matplotlib

    matplotlib.use("Agg")
    import numpy
    import pandas
    import pymc

    return {"bns": bns, "np": numpy, "pm": pymc, "pd": pandas}


@pytest.mark.slow
@pytest.mark.parametrize("name, obj", LISTED_OBJECTS, ids=[n for n, _ in LISTED_OBJECTS])
def test_examples_run(name, obj, doctest_globals):
    import doctest
    import io

    if name in PENDING_EXAMPLES:
        pytest.skip("listed in PENDING_EXAMPLES")
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    tests = finder.find(obj, name, globs=dict(doctest_globals))
    assert tests and any(t.examples for t in tests), f"{name}: no doctest examples found"
    out = io.StringIO()
    for t in tests:
        runner.run(t, out=out.write)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed\n{out.getvalue()}"
