"""Re-evaluating a configuration from a known analysis
(pipeline_lib/gpumech/reevaluate.py, analysis.collection_key): what may be
reused, that reuse changes nothing it should not, and that a wrong reuse is
refused."""
import numpy as np
import pandas as pd
import pytest

from pipeline_lib.gpumech.analysis import GPUMech, collected_frame, collected_from_frame, collection_key
from pipeline_lib.gpumech.contention import MODEL
from pipeline_lib.gpumech.reevaluate import Reevaluation
from pipeline_lib.sim.hardware import load_hardware, variant_name
from test_gpumech_contention import _stream_trace
from test_simulator_timing import hardware

KEY = ["launch", "selection", "policy", "model"]


@pytest.fixture(scope="module")
def analysed(tmp_path_factory):
    tr = _stream_trace(tmp_path_factory.mktemp("stream"), 1 << 13, 2, 8)
    hw = hardware(cores=4)
    return tr, hw, GPUMech(hw).run(tr)


def _cpi(res, model=None):
    p = res["predictions"]
    p = p if model is None else p[p["model"] == model]
    return p.set_index(KEY)["cpi"].sort_index()


def test_only_timing_fields_leave_the_collection_key():
    base = load_hardware("gpumech-baseline")
    for spec in ({"mshr": 16}, {"mc": 4000}, {"cc": 1400}):
        assert collection_key(load_hardware(variant_name("gpumech-baseline", **spec))) == collection_key(base)
    assert collection_key(load_hardware(variant_name("gpumech-baseline", w=16))) != collection_key(base)
    assert collection_key(hardware(**{"l1.size_bytes": 16384})) != collection_key(base)
    assert collection_key(hardware(**{"l2.slices": 4})) != collection_key(base)
    assert collection_key(hardware(**{"latency.fp32": 4})) == collection_key(base)


def test_reusing_the_same_configurations_counts_changes_nothing(analysed, tmp_path):
    tr, hw, base = analysed
    reps = dict(zip(base["launches"]["launch"], base["launches"]["representative"]))
    # through Parquet, as the workflow passes it
    f = tmp_path / "collected.parquet"
    collected_frame(collected_from_frame(base["collected"])).to_parquet(f)
    again = GPUMech(hw, reps, collected=collected_from_frame(pd.read_parquet(f))).run(tr)
    fresh = GPUMech(hw, reps).run(tr)
    pd.testing.assert_series_equal(_cpi(again), _cpi(fresh))
    for col in ("in_step_rr", "in_step_gto", "ordered_l1_miss_rate_gto", "l2_miss_rate"):
        assert again["launches"][col].tolist() == fresh["launches"][col].tolist()
    assert (again["launches"]["ordered_collector_s"] == 0).all()          # no collector ran


def test_a_timing_change_keeps_the_seed_models_exact(analysed):
    """The round-robin collector reads no timing field, so with 4 times
    fewer MSHRs the seed's models predict the same from reused counts as
    from a new collection; MT_CONTENTION's ordered counts move a little."""
    tr, hw, base = analysed
    reps = dict(zip(base["launches"]["launch"], base["launches"]["representative"]))
    slow = hardware(cores=4, **{"l1.mshrs": 8})
    reused = GPUMech(slow, reps, collected=collected_from_frame(base["collected"])).run(tr)
    fresh = GPUMech(slow, reps).run(tr)
    for model in ("MT_MSHR_BAND", "Markov_Chain", "MT"):
        pd.testing.assert_series_equal(_cpi(reused, model), _cpi(fresh, model))
    assert not np.allclose(_cpi(reused, MODEL), _cpi(GPUMech(hw, reps).run(tr), MODEL))   # the MSHRs do count


def test_reevaluation_predicts_what_the_analysis_does(analysed):
    tr, hw, base = analysed
    ev = Reevaluation(tr, base["launches"], base["collected"])
    p = base["predictions"]
    for policy in ("rr", "gto"):
        want = p[(p["selection"] == "clustering") & (p["model"] == MODEL) & (p["policy"] == policy)]
        want = want.sort_values("launch")["cpi"].to_numpy()
        assert np.array_equal(ev.predict(hw, policy)["cpi"].to_numpy(), want)
        # collecting again on the same configuration gives the same counts
        assert np.array_equal(ev.predict(hw, policy, collected=ev.collect(hw, policy))["cpi"].to_numpy(), want)


def test_profiles_are_shared_only_where_their_fields_agree(analysed, monkeypatch):
    """A sweep of MSHRs or bandwidths computes each launch's interval profile
    once; a change of any field the profile reads, or new counts, computes
    it again.  Every prediction is that of a fresh re-evaluation."""
    import pipeline_lib.gpumech.reevaluate as R
    tr, hw, base = analysed
    calls = []
    real = R.contention_timing
    monkeypatch.setattr(R, "contention_timing", lambda *a: calls.append(1) or real(*a))
    ev = Reevaluation(tr, base["launches"], base["collected"])
    n = len(ev.launches)
    sweep = [hardware(cores=4, **{"l1.mshrs": m}) for m in (8, 16, 64)] + [hardware(cores=4, **{"l2.bytes_per_clock": 16})]
    moved = [hardware(cores=4, **{k: v}) for k, v in (("l2.hit_latency", 200), ("dram.latency", 500),
                                                      ("dram.row_miss_latency", 90), ("latency.fp32", 9),
                                                      ("l1.hit_latency", 40))]
    preds = [ev.predict(h, "rr")["cpi"].to_numpy() for h in sweep + moved]
    assert len(calls) == n * (1 + len(moved))
    new = ev.collect(sweep[-1], "rr")           # other counts, same fields: computed again
    ev.predict(sweep[-1], "rr", collected=new)
    assert len(calls) == n * (2 + len(moved))
    for h, got in zip(sweep + moved, preds):
        assert np.array_equal(got, Reevaluation(tr, base["launches"], base["collected"]).predict(h, "rr")["cpi"])


def test_a_collection_of_another_trace_is_refused(analysed, tmp_path):
    tr, hw, base = analysed
    other = _stream_trace(tmp_path, 1 << 12, 1, 4)          # one launch
    reps = {0: 0}
    wrong = collected_from_frame(base["collected"])
    wrong = {k: v for k, v in wrong.items() if k[0] == 1}  # launch 0 missing
    with pytest.raises(ValueError, match="no counts of the round-robin collector for launch 0"):
        GPUMech(hw, reps, collected=wrong).run(other)
    with pytest.raises(ValueError, match="launch 1 has no representative warp"):
        Reevaluation(tr, base["launches"][base["launches"]["launch"] == 0], base["collected"])
