"""The ``graphinvariants`` command: outputs, messages and exit status of each subcommand."""

import contextlib
import csv
import errno
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import graphinvariants as gi
from graphinvariants.cli._main import build_parser, main

ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *argv):
    """Run the command; return its exit status, stdout and stderr."""
    try:
        status = main([str(a) for a in argv])
    except SystemExit as exit:  # argparse: --help, --version and usage errors
        status = exit.code
    out, err = capsys.readouterr()
    return status, out, err


def _csv_rows(path):
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


def _steps_by_collection(csv_path):
    steps = {}
    for row in _csv_rows(csv_path):
        steps.setdefault(row["collection"], []).append(int(row["step"]))
    return steps


# -- demo, --version, --help --------------------------------------------------------------
def test_demo_gives_kernel_one_for_the_two_karate_graphs(capsys):
    status, out, _ = run(capsys, "demo")
    assert status == 0
    matrix = out.split("Power kernel matrix:\n")[1].split("\n\n")[0].splitlines()
    rows = dict(re.split(r"\s{2,}", line.strip(), maxsplit=1) for line in matrix)
    rows = {name: [float(v) for v in values.split()] for name, values in rows.items()}
    # printed with 4 decimals, so this reads 1.0 for K >= 0.99995 (K is exactly 1.0: one graph in two node orders)
    assert rows["karate (networkx)"][1] == rows["karate (igraph)"][0] == 1.0
    assert "give K = 1.000000000000." in out


def test_version(capsys):
    status, out, _ = run(capsys, "--version")
    assert (status, out) == (0, f"graphinvariants {gi.__version__}\n")


def _parsers():
    parser = build_parser()
    return {"graphinvariants": parser, **parser._subparsers._group_actions[0].choices}


@pytest.mark.parametrize("command", ["graphinvariants", "demo", "evaluate", "perturb"])
def test_help_is_plain_text_and_every_option_shows_its_default(command):
    parser = _parsers()[command]
    text = parser.format_help()
    assert "``" not in text and ":func:" not in text and ":class:" not in text
    for action in parser._actions:
        if action.option_strings and action.dest not in ("help", "version"):
            assert action.help and "(default: " in action.help, action.option_strings


def test_help_names_worker_threads_and_the_seed():
    text = _parsers()["evaluate"].format_help()
    assert re.search(r"--n-jobs N_JOBS\s+worker threads", text)
    assert re.search(r"--seed SEED\s+seed of all random choices", text)


# -- perturb ------------------------------------------------------------------------------
def test_perturb_on_generated_graphs_writes_every_step(tmp_path, capsys):
    figure = tmp_path / "fig" / "p.png"
    status, out, _ = run(capsys, "perturb", "--graphs", "5", "--flips", "3", "--out", figure)
    assert status == 0 and "generated on the spot" in out
    assert figure.read_bytes()[:4] == b"\x89PNG"
    steps = _steps_by_collection(tmp_path / "fig" / "p.csv")
    assert list(steps) == ["Erdos-Renyi (p = 4/n)", "Barabasi-Albert (m = 2)", "Watts-Strogatz (k = 4, p = 0.1)"]
    assert all(s == [0, 1, 2, 3] for s in steps.values())
    studies = json.loads((tmp_path / "fig" / "p.json").read_text())
    assert list(studies) == list(steps)
    assert all(len(study["curves"]) == 5 and len(study["curves"][0]) == 4 for study in studies.values())


def test_perturb_on_tu_data(tu_dir, tmp_path, capsys):
    status, out, _ = run(capsys, "perturb", "MUTAG", "--graphs", "20", "--steps", "4", "--data-home", tu_dir,
                         "--no-download", "--out", tmp_path / "p.png")
    assert status == 0 and "generated" not in out
    assert _steps_by_collection(tmp_path / "p.csv") == {"MUTAG": [0, 1, 2, 3, 4]}
    rows = _csv_rows(tmp_path / "p.csv")
    # exact: step 0 is every graph against itself (1.0), and the mean of ones is 1.0
    assert float(rows[0]["mean"]) == 1.0 and all(0 < float(r["mean"]) <= 1 for r in rows)
    assert (tmp_path / "p.png").is_file() and list(json.loads((tmp_path / "p.json").read_text())) == ["MUTAG"]


def test_perturb_named_data_set_that_is_missing_is_an_error(tu_dir, tmp_path, capsys):
    status, out, err = run(capsys, "perturb", "MUTAGG", "--graphs", "3", "--steps", "2", "--data-home", tu_dir,
                           "--out", tmp_path / "p.png")
    assert status == 2 and "generated" not in out
    assert err.startswith("graphinvariants: error: TU data set 'MUTAGG' not found") and "did you mean 'MUTAG'" in err
    assert list(tmp_path.iterdir()) == []


def test_perturb_refuses_the_learned_default_before_any_work(tmp_path, capsys):
    figure = tmp_path / "p.png"
    status, _, err = run(capsys, "perturb", "--graphs", "3", "--steps", "2", "--kernel", "power,learned",
                         "--out", figure)
    assert status == 2
    assert "'learned' is fitted to class labels, which perturb does not have" in err
    assert "Traceback" not in err and not figure.exists()
    status, out, _ = run(capsys, "perturb", "--help")
    assert status == 0 and "learned" not in out


def test_missing_data_messages_name_the_command_line_option(tmp_path, capsys):
    status, _, err = run(capsys, "perturb", "NOPE", "--no-download", "--data-home", tmp_path,
                         "--out", tmp_path / "p.png")
    assert status == 2
    assert "TU data set 'NOPE' not found" in err and "--data-home / set $GRAPHINVARIANTS_DATA" in err
    assert "data_home=" not in err and "Traceback" not in err


def test_damaged_download_is_reported_without_traceback(tmp_path, monkeypatch, capsys):
    import pooch

    archive = tmp_path / "NOPE.zip"
    archive.write_bytes(b"<html>not a zip</html>")
    monkeypatch.setattr(pooch, "retrieve", lambda *args, **kwargs: str(archive))
    status, _, err = run(capsys, "perturb", "NOPE", "--data-home", tmp_path / "home", "--download", "--out", tmp_path / "p.png")
    assert status == 2
    assert err.startswith(f"graphinvariants: error: {archive} is damaged or truncated") and "delete it" in err


def _command(name, tu_dir):
    """A quick run of ``perturb`` (generated graphs) or ``evaluate`` (MUTAG), without --out."""
    if name == "perturb":
        return ["perturb", "--graphs", "3", "--steps", "1"]
    return ["evaluate", "MUTAG", "--reps", "1", "--folds", "2", "--data-home", tu_dir, "--no-download", "--quiet"]


@pytest.mark.parametrize("command, out, message", [
    ("perturb", ".", "is a folder; give a figure file"),
    ("perturb", "a_file/p.png", "a_file is a file, not a folder"),
    ("perturb", "a_file/sub/p.png", "cannot create the folder"),
    ("evaluate", "a_file", "a_file is a file, not a folder"),
    ("evaluate", "a_file/sub", "cannot create the folder"),
])
def test_out_that_cannot_be_written_is_a_clear_error(command, out, message, tu_dir, tmp_path, capsys):
    (tmp_path / "a_file").write_text("")
    status, _, err = run(capsys, *_command(command, tu_dir), "--out", tmp_path / out)
    assert status == 2
    assert err.startswith("graphinvariants: error: --out") and message in err and "Traceback" not in err
    assert sorted(os.listdir(tmp_path)) == ["a_file"]


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root may write anywhere")
@pytest.mark.parametrize("command", ["perturb", "evaluate"])
def test_out_in_a_read_only_folder_is_a_clear_error(command, tu_dir, tmp_path, capsys):
    read_only = tmp_path / "read_only"
    read_only.mkdir(mode=0o500)
    status, _, err = run(capsys, *_command(command, tu_dir), "--out", read_only / "out" / "p.png")
    assert status == 2 and err.startswith("graphinvariants: error: --out") and "Permission denied" in err


def test_perturb_refuses_an_out_that_is_no_figure_format(tmp_path, capsys):
    status, _, err = run(capsys, "perturb", "--graphs", "3", "--out", tmp_path / "p.csv")
    assert status == 2 and ".csv is no figure format" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("out, message", [
    ("noext", "the file name has no figure extension"),
    ("fig.", "the file name has no figure extension"),
    ("newdir/", "is a folder"),
    ("y.png", "y.json is a folder, and the figure's CSV and JSON go beside it"),
])
def test_perturb_checks_all_its_outputs_before_any_work(out, message, tmp_path, capsys):
    (tmp_path / "y.json").mkdir()
    status, _, err = run(capsys, "perturb", "--graphs", "3", "--steps", "2", "--out", f"{tmp_path}/{out}")
    assert status == 2 and message in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["y.json"]  # nothing written


def test_product_and_mean_of_the_same_kernels_have_their_own_files(tu_dir, tmp_path, capsys):
    argv = ["evaluate", "MUTAG", "--reps", "1", "--folds", "2", "--data-home", tu_dir, "--no-download",
            "--out", tmp_path, "--quiet", "--kernel", "power*wl,power+wl"]
    status, _, err = run(capsys, *argv)
    assert (status, err) == (0, "")
    assert [r["kernel"] for r in _csv_rows(tmp_path / "evaluation.csv")] == ["power*wl", "power+wl"]
    assert len(list(tmp_path.glob("checkpoint-MUTAG-*.jsonl"))) == 2


def test_a_data_set_beyond_the_paper_has_null_not_nan_in_the_json(tu_dir, tmp_path, capsys):
    shutil.copytree(Path(tu_dir) / "MUTAG", tmp_path / "home" / "FOO")
    for path in (tmp_path / "home" / "FOO").iterdir():
        path.rename(path.with_name(path.name.replace("MUTAG", "FOO")))
    status, out, err = run(capsys, "evaluate", "FOO", "--reps", "1", "--folds", "2", "--data-home",
                           tmp_path / "home", "--no-download", "--out", tmp_path / "out", "--quiet")
    assert status == 0, err
    text = (tmp_path / "out" / "evaluation.json").read_text()
    assert "NaN" not in text and json.loads(text)["rows"][0]["paper_accuracy"] is None
    assert re.search(r"FOO .* +-$", out, flags=re.M)


def test_readme_outputs_are_ignored_by_git():
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    figure = Path(build_parser().parse_args(["perturb"]).out)
    for path in (figure, figure.with_suffix(".csv"), figure.with_suffix(".json")):
        ignored = subprocess.run(["git", "-C", str(ROOT), "check-ignore", "-q", "--no-index", str(path)])
        assert ignored.returncode == 0, f"{path} is not in .gitignore"


# -- evaluate -----------------------------------------------------------------------------
def test_evaluate_writes_the_table_and_resumes(tu_dir, tmp_path, capsys):
    argv = ["evaluate", "MUTAG", "--reps", "1", "--folds", "3", "--k", "3", "--data-home", tu_dir,
            "--no-download", "--out", tmp_path, "--quiet"]
    status, out, _ = run(capsys, *argv)
    assert status == 0
    assert "no standard error: it is undefined for one repetition (use --reps 2 or more)" in out
    assert "resumed" not in out and "(0.00)" not in out
    [row] = _csv_rows(tmp_path / "evaluation.csv")
    assert row["dataset"] == "MUTAG" and 0 <= float(row["accuracy"]) <= 100 and row["stderr"] == ""
    assert re.search(rf"MUTAG +{float(row['accuracy']):.2f} +83\.22 \(0\.47\)", out)  # no standard error
    assert "undefined)" not in out
    assert f"MUTAG, power (k=3): {float(row['accuracy']):.2f} in " in out
    summary = json.loads((tmp_path / "evaluation.json").read_text())
    assert (summary["k"], summary["reps"], summary["folds"]) == (3, 1, 3)
    assert summary["rows"][0]["stderr"] is None
    details = json.loads((tmp_path / "evaluation-MUTAG-k3-reps1-folds3-seed0.json").read_text())
    assert details["k"] == 3 and len(details["details"]["accuracies"][0]) == 3
    assert details["stderr"] is None and details["details"]["stderr"] is None
    fold_seconds = sum(record["outcome"]["seconds"] for record in _checkpoint_records(tmp_path))
    assert 0 < fold_seconds <= float(row["seconds"]) + 0.05  # the folds ran within the command (rounded to 0.1)

    status, out, _ = run(capsys, *argv)
    assert status == 0 and "MUTAG: resumed 3 of 3 folds from" in out
    [again] = _csv_rows(tmp_path / "evaluation.csv")
    # a resumed run reports the work of its folds: their fits and recorded seconds
    assert (again["accuracy"], again["stderr"], again["fits"]) == (row["accuracy"], row["stderr"], row["fits"])
    assert float(again["seconds"]) >= round(fold_seconds, 1) - 0.05
    assert json.loads((tmp_path / "evaluation.json").read_text())["rows"][0]["fits"] == int(row["fits"])
    assert re.search(rf"MUTAG, power \(k=3\): .* in {float(again['seconds']):.0f} s", out)


def test_evaluate_details_files_of_other_settings_are_kept(tu_dir, tmp_path, capsys):
    """evaluation-MUTAG.json was replaced by a run with other settings (a --reps 1 run
    overwrote the --reps 2 results): its name now carries them, as the checkpoints do."""
    common = ["evaluate", "MUTAG", "--folds", "3", "--k", "3", "--kernel", "wl", "--data-home", tu_dir,
              "--no-download", "--out", tmp_path, "--quiet"]
    assert run(capsys, *common, "--reps", "2")[0] == 0
    assert run(capsys, *common, "--reps", "1")[0] == 0
    two = json.loads((tmp_path / "evaluation-MUTAG-wl-k3-reps2-folds3-seed0.json").read_text())
    one = json.loads((tmp_path / "evaluation-MUTAG-wl-k3-reps1-folds3-seed0.json").read_text())
    assert len(two["details"]["accuracies"]) == 2 and len(one["details"]["accuracies"]) == 1
    assert sorted(p.name for p in tmp_path.glob("evaluation-*.json")) == [
        "evaluation-MUTAG-wl-k3-reps1-folds3-seed0.json", "evaluation-MUTAG-wl-k3-reps2-folds3-seed0.json"]


def _checkpoint_records(folder):
    [path] = folder.glob("checkpoint-*.jsonl")
    records = [json.loads(line) for line in path.read_text().splitlines()]
    return sorted(records, key=lambda record: (record["repeat"], record["fold"]))


def _without_seconds(records):
    return [{**record, "outcome": {key: value for key, value in record["outcome"].items() if key != "seconds"}}
            for record in records]


@pytest.mark.slow
@pytest.mark.parametrize("scheduler", ["address", "local"])
def test_evaluate_on_a_dask_cluster_equals_the_local_run(tu_dir, tmp_path, capsys, scheduler):
    distributed = pytest.importorskip("distributed")
    common = ["evaluate", "MUTAG", "--reps", "2", "--folds", "3", "--k", "3", "--data-home", tu_dir,
              "--no-download", "--quiet"]
    assert run(capsys, *common, "--out", tmp_path / "here")[0] == 0
    with contextlib.ExitStack() as stack:
        if scheduler == "address":  # a cluster in this process, as a remote one would be reached
            cluster = stack.enter_context(distributed.LocalCluster(
                n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None))
            scheduler = cluster.scheduler_address
        status, out, err = run(capsys, *common, "--out", tmp_path / "there", "--scheduler", scheduler)
    assert (status, err) == (0, ""), err
    assert re.search(r"the folds run on the Dask cluster at \S+ \(\d+ workers\)", out)
    here, there = (json.loads((tmp_path / f / "evaluation-MUTAG-k3-reps2-folds3-seed0.json").read_text())
                   for f in ("here", "there"))
    for key in ("accuracies", "chosen_C", "validation_accuracies"):
        assert there["details"][key] == here["details"][key]
    # the same records but for each fold's seconds
    assert _without_seconds(_checkpoint_records(tmp_path / "there")) == _without_seconds(
        _checkpoint_records(tmp_path / "here"))


def test_evaluate_with_a_scheduler_that_cannot_be_reached_is_a_clean_error(tu_dir, tmp_path, capsys):
    dask = pytest.importorskip("dask")
    pytest.importorskip("distributed")
    common = ["evaluate", "MUTAG", "--reps", "1", "--folds", "2", "--data-home", tu_dir, "--no-download",
              "--quiet", "--out", tmp_path]
    status, _, err = run(capsys, *common, "--scheduler", "nonsense")
    assert status == 2 and "--scheduler: cannot connect to the Dask scheduler at 'nonsense'" in err
    with dask.config.set({"distributed.comm.timeouts.connect": "0.5s"}):
        status, _, err = run(capsys, *common, "--scheduler", "tcp://127.0.0.1:1")
    assert status == 2 and "cannot connect to the Dask scheduler at 'tcp://127.0.0.1:1' (Timed out" in err
    assert "Traceback" not in err and not list(tmp_path.glob("checkpoint-*"))


def test_n_jobs_zero_is_a_usage_error_before_any_work(capsys):
    status, _, err = run(capsys, "evaluate", "MUTAG", "--n-jobs", "0", "--scheduler", "local")
    assert status == 2 and "--n-jobs: must not be 0" in err


def test_evaluate_on_a_cluster_without_dask_says_what_to_install(tu_dir, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # "import distributed" now raises ImportError
    status, _, err = run(capsys, "evaluate", "MUTAG", "--data-home", tu_dir, "--no-download", "--quiet",
                         "--out", tmp_path, "--scheduler", "local")
    assert status == 2 and 'pip install "graphinvariants[dask]"' in err


def test_evaluate_with_other_folds_does_not_reuse_the_checkpoint(tu_dir, tmp_path, capsys):
    common = ["evaluate", "MUTAG", "--reps", "1", "--data-home", tu_dir, "--no-download", "--out", tmp_path, "--quiet"]
    assert run(capsys, *common, "--folds", "3")[0] == 0
    status, out, err = run(capsys, *common, "--folds", "2")
    assert (status, err) == (0, "") and "resumed" not in out


@pytest.mark.parametrize("option, value, message", [
    ("--reps", "0", "argument --reps: must be at least 1, got 0"),
    ("--reps", "-2", "argument --reps: must be at least 1, got -2"),
    ("--folds", "1", "argument --folds: must be at least 2, got 1"),
    ("--k", "0", "argument --k: must be at least 1, got 0"),
    ("--reps", "two", "argument --reps: not an integer: 'two'"),
])
def test_evaluate_refuses_counts_below_their_minimum(tmp_path, capsys, option, value, message):
    status, _, err = run(capsys, "evaluate", "MUTAG", option, value, "--data-home", tmp_path, "--no-download",
                         "--out", tmp_path / "out")
    assert status == 2 and message in err
    assert not (tmp_path / "out").exists()


def test_evaluate_missing_data_set_is_a_clean_error(tmp_path, capsys):
    status, _, err = run(capsys, "evaluate", "NOPE", "--no-download", "--data-home", tmp_path, "--quiet",
                         "--out", tmp_path / "out")
    assert status == 2 and err.startswith("graphinvariants: error: TU data set 'NOPE' not found")
    assert not (tmp_path / "out").exists()


def test_evaluate_several_kernels_side_by_side(tu_dir, tmp_path, capsys):
    argv = ["evaluate", "MUTAG", "--reps", "1", "--folds", "3", "--data-home", tu_dir, "--no-download",
            "--out", tmp_path, "--quiet", "--kernel", "power,wl:n_iter=3,histogram:k=4"]
    status, out, _ = run(capsys, *argv)
    assert status == 0
    rows = _csv_rows(tmp_path / "evaluation.csv")
    assert [r["kernel"] for r in rows] == ["power", "wl:n_iter=3", "histogram:k=4"]
    header = next(line for line in out.splitlines() if line.startswith("data set"))
    assert header.split()[2:] == ["power", "(k=5)", "wl:n_iter=3", "histogram:k=4", "paper", "(power)"]
    table = next(line for line in out.splitlines() if line.startswith("MUTAG  "))
    for r in rows:
        assert re.search(rf" {float(r['accuracy']):.2f}( |$)", table)  # one repetition: no standard error
    assert "undefined" not in table


def test_unknown_kernels_are_refused_by_the_parser(capsys):
    with pytest.raises(SystemExit) as exc:
        build_parser().parse_args(["evaluate", "MUTAG", "--kernel", "power,wlx"])
    assert exc.value.code == 2 and "unknown kernel 'wlx'" in capsys.readouterr().err
    for given, suggestion in (("powr", "'power'"), ("WL", "'wl'"), ("learnd", "'learned'")):
        with pytest.raises(SystemExit) as exc:
            build_parser().parse_args(["evaluate", "MUTAG", "--kernel", given])
        err = capsys.readouterr().err
        assert exc.value.code == 2 and f"unknown kernel '{given}': did you mean {suggestion}" in err
        assert "'learned'" in err  # evaluate takes it: it is in the list


def test_perturb_several_kernels_with_the_property_2_column(tmp_path, capsys):
    status, out, _ = run(capsys, "perturb", "--graphs", "4", "--steps", "20", "--kernel", "wl,power",
                         "--out", tmp_path / "p.png")
    assert status == 0 and "below the median of others after" in out.splitlines()[2]  # wl crosses
    assert "7 steps" in out and "more than 20 steps" in out
    # the column is explained under the table, and the summary says what ran
    assert "below the median of others after: the number of steps after which the mean kernel" in out
    assert "4 graphs from each of 3 collections x 20 flip steps, under 2 kernels (wl, power) in" in out
    rows = _csv_rows(tmp_path / "p.csv")
    assert {r["kernel"] for r in rows} == {"power", "wl"} and len(rows) == 3 * 2 * 21
    saved = json.loads((tmp_path / "p.json").read_text())
    assert all("crossing_step" in study for study in saved.values())


@pytest.mark.parametrize("command", ["perturb", "demo"])
def test_a_negative_seed_is_a_usage_error(command, capsys):
    status, _, err = run(capsys, command, "--seed", "-1")
    assert status == 2 and "--seed" in err and "Traceback" not in err


def test_a_kernel_named_twice_is_a_usage_error(capsys):
    status, _, err = run(capsys, "perturb", "--kernel", "power,wl,power")
    assert status == 2 and "power named twice" in err


def test_evaluate_with_two_repetitions_shows_the_standard_error(tu_dir, tmp_path, capsys):
    status, out, _ = run(capsys, "evaluate", "MUTAG", "--reps", "2", "--folds", "2", "--data-home", tu_dir,
                         "--no-download", "--out", tmp_path, "--quiet")
    assert status == 0 and "in parentheses the standard error over the 2 repetitions" in out
    [row] = _csv_rows(tmp_path / "evaluation.csv")
    assert f"{float(row['accuracy']):.2f} ({float(row['stderr']):.2f})" in out


@pytest.mark.parametrize("command, wrong, right", [
    ("evaluate", "--repeats", "--reps"), ("evaluate", "--kernal", "--kernel"), ("perturb", "--setps", "--steps"),
    ("perturb", "--kernels=power", "--kernel"),
])
def test_an_unknown_option_is_a_usage_error_of_the_subcommand_with_the_closest_name(command, wrong, right, capsys):
    status, _, err = run(capsys, command, "MUTAG", wrong, "1")
    assert status == 2
    assert err.startswith(f"usage: graphinvariants {command} ")  # not the top-level usage
    assert f"unrecognized arguments: {wrong} 1; did you mean {right} (for {wrong})?" in err


def test_an_unknown_argument_without_a_close_option_is_still_named(capsys):
    status, _, err = run(capsys, "demo", "--zzzzzz")
    assert status == 2 and err.rstrip().endswith("unrecognized arguments: --zzzzzz")


def test_perturb_help_explains_the_crossing_column():
    text = " ".join(_parsers()["perturb"].format_help().split())
    assert "'below the median of others after', is the number of steps after which" in text


def test_a_full_disk_leaves_the_previous_output_whole_and_names_the_file(tmp_path, capsys, monkeypatch):
    """Outputs are written to a new file and renamed: a failed write leaves the old one."""
    argv = ["perturb", "--graphs", "2", "--steps", "1", "--out", tmp_path / "p.png"]
    assert run(capsys, *argv)[0] == 0
    before = (tmp_path / "p.json").read_bytes()

    def dump_until_the_disk_is_full(obj, fh, **kwargs):
        fh.write("{\"trunc")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(json, "dump", dump_until_the_disk_is_full)
    status, _, err = run(capsys, *argv)
    assert status == 2 and "Traceback" not in err
    assert f"cannot write {tmp_path / 'p.json'} (No space left on device)" in err
    assert (tmp_path / "p.json").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.csv", "p.json", "p.png"]  # no temporary left


def test_evaluate_checks_every_output_before_any_fold(tu_dir, tmp_path, capsys):
    for blocked in ("evaluation.csv", "evaluation-MUTAG-wl-k5-reps1-folds2-seed0.json"):
        out = tmp_path / blocked.replace(".", "_")
        (out / blocked).mkdir(parents=True)
        status, _, err = run(capsys, "evaluate", "MUTAG", "--reps", "1", "--folds", "2", "--data-home", tu_dir,
                             "--no-download", "--out", out, "--quiet", "--kernel", "power,wl")
        assert status == 2 and f"--out: cannot write {out / blocked}, it is a folder" in err
        assert sorted(p.name for p in out.iterdir()) == [blocked]  # no fold ran, no checkpoint


def test_evaluate_the_learned_default_fits_it_per_fold(tu_dir, tmp_path, capsys):
    argv = ["evaluate", "MUTAG", "--kernel", "learned", "--reps", "1", "--folds", "3", "--data-home", tu_dir,
            "--no-download", "--out", tmp_path, "--quiet"]
    status, out, _ = run(capsys, *argv)
    assert status == 0 and "MUTAG, learned:" in out
    [row] = _csv_rows(tmp_path / "evaluation.csv")
    expected = gi.evaluate_estimator(gi.load_tu("MUTAG", data_home=tu_dir, download=False), gi.load_tu(
        "MUTAG", data_home=tu_dir, download=False).y, n_repeats=1, n_folds=3, seed=0)
    assert float(row["accuracy"]) == round(100 * expected.mean, 2)
    status, out, _ = run(capsys, *argv)  # its folds were checkpointed: nothing is fitted again
    assert status == 0 and "MUTAG: resumed 3 of 3 folds from" in out
    [again] = _csv_rows(tmp_path / "evaluation.csv")
    assert (again["accuracy"], again["fits"]) == (row["accuracy"], row["fits"])  # the folds' fits, not 0


@pytest.mark.parametrize("option, message", [
    ("members=wl+nope", r"members must name candidates among .*'nope'"),
    ("powers=0", "powers must be positive integers"),
    ("bandwidths=-1", "bandwidths must be finite positive numbers"),
    ("seed=abc", "seed must be"),
    ("selection=best", "selection must be one of"),
    ("k=-1", "k must be"),
    ("histogram__nope=3", "nope"),
    ("members=(wl,)", r"members=\(wl: on the command line, join its items by '\+' without brackets or quotes, "
                      r"e.g. learned:members=wl\+wloa"),
    # was: accepted here, the data loaded, then refused naming internal candidates
    ("random_state=0", r"learned has no option random_state.*learned:seed=0.*learned:attributes__seed=0"),
])
def test_evaluate_refuses_bad_learned_options_before_any_fold(option, message, tmp_path, capsys):
    """Options of the learned default are checked while parsing (exit 2, our prefix),
    not in the first fold with a traceback."""
    status, out, err = run(capsys, "evaluate", "MUTAG", "--kernel", f"learned:{option}", "--reps", "1", "--folds",
                           "3", "--data-home", tmp_path / "none", "--no-download", "--out", tmp_path / "out")
    assert status == 2 and "error: argument --kernel" in err
    assert re.search(message, err), err
    assert "Traceback" not in err and not (tmp_path / "out").exists()


def test_learned_tuples_on_the_command_line():
    """A sequence option is written with '+' between its items; one item is a sequence
    of one (what the library's message suggests, e.g. members=('wl',), is spelled wl)."""
    from graphinvariants.cli._kernels import kernel_list

    [(_, name, params)] = kernel_list("learned:members=wl+wloa,powers=1+2,bandwidths=0.5")
    assert name == "learned"
    assert params == {"members": ("wl", "wloa"), "powers": (1, 2), "bandwidths": (0.5,)}
    [(_, _, params)] = kernel_list("learned:members=wl,powers=2,bandwidths=1")
    assert params == {"members": ("wl",), "powers": (2,), "bandwidths": (1,)}
    assert gi.GraphKernel(**params).learned_combination().members == ("wl",)


def test_evaluate_the_learned_default_with_one_member(tu_dir, tmp_path, capsys):
    status, out, err = run(capsys, "evaluate", "MUTAG", "--kernel", "learned:members=wl", "--reps", "1", "--folds",
                           "3", "--data-home", tu_dir, "--no-download", "--out", tmp_path, "--quiet")
    assert status == 0, err
    assert "MUTAG, learned:members=wl:" in out


def test_the_kernel_list_of_evaluate_names_learned_and_perturb_s_does_not(capsys):
    """Was: learned added after the list and its default, easy to miss."""
    import re

    helps = {}
    for command in ("evaluate", "perturb"):
        with pytest.raises(SystemExit):
            build_parser().parse_args([command, "--help"])
        helps[command] = " ".join(capsys.readouterr().out.split())
    listing = re.search(r"kernels to compare, side by side: (.*?), or products", helps["evaluate"]).group(1)
    assert listing.startswith("power (the paper's), learned (")
    assert "learned" not in re.search(r"kernels to compare, side by side: (.*?), or products",
                                      helps["perturb"]).group(1)


class _Terminal:
    """A standard error that says it is a terminal, keeping what is written."""

    def __init__(self):
        self.text = []

    def write(self, text):
        self.text.append(text)

    def flush(self):
        pass

    def isatty(self):
        return True


@pytest.mark.parametrize("command", [["demo"], ["perturb", "--graphs", "3", "--steps", "2"]], ids=["demo", "perturb"])
def test_demo_and_perturb_show_progress_on_a_terminal_unless_quiet(command, tmp_path, capsys, monkeypatch):
    """Was: no progress at all (fast today; they should show it once inputs grow)."""
    argv = command + (["--out", str(tmp_path / "p.png")] if command[0] == "perturb" else [])
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(argv) == 0
    assert re.search(r"(demo|perturbation study of \w+).*\| [0-9]+/[0-9]+ \[", "".join(terminal.text))
    terminal.text.clear()
    assert main(argv + ["--quiet"]) == 0
    assert "".join(terminal.text) == ""
    monkeypatch.undo()
    status, _, err = run(capsys, *argv)  # not a terminal: no bar either
    assert status == 0 and err == ""


def _mutag_with_one_class(tmp_path, tu_dir):
    """MUTAG's files under ``tmp_path/MUTAG``, every graph labelled 1."""
    folder = tmp_path / "MUTAG"
    shutil.copytree(tu_dir / "MUTAG", folder)
    labels = folder / "MUTAG_graph_labels.txt"
    labels.write_text("1\n" * len(labels.read_text().split()))
    return tmp_path


@pytest.mark.parametrize("kernel", ["power", "learned"])
def test_evaluate_refuses_a_single_class_before_any_kernel_matrix(kernel, tu_dir, tmp_path, capsys, monkeypatch):
    """Was: the power kernel's matrix computed, then the labels refused by the protocol."""
    home = _mutag_with_one_class(tmp_path, tu_dir)

    def not_expected(*args, **kwargs):
        raise AssertionError("a kernel matrix was computed before the labels were checked")

    monkeypatch.setattr(gi, "kernel_matrix", not_expected)
    monkeypatch.setattr(gi, "evaluate_estimator", not_expected)
    status, _, err = run(capsys, "evaluate", "MUTAG", "--data-home", home, "--no-download", "--reps", 1,
                         "--folds", 2, "--kernel", kernel, "--out", tmp_path / "out", "--quiet")
    assert status == 2
    assert "MUTAG" in err and "single class (1)" in err


@pytest.mark.parametrize("command", ["evaluate", "perturb"])
def test_an_explicit_data_home_is_looked_in_only(command, tmp_path, capsys, monkeypatch):
    """Was: evaluate FOOBAR --data-home DIR started a download into DIR."""
    from graphinvariants.datasets import tu

    def no_download(*args, **kwargs):
        raise AssertionError("a download was started")

    monkeypatch.setattr(tu, "_download", no_download)
    status, _, err = run(capsys, command, "FOOBAR", "--data-home", tmp_path, "--out", tmp_path / "out.png")
    assert status == 2 and "'FOOBAR' not found" in err and "unless --download is given" in err
    assert "--data-home" in err and "data_home=" not in err


def test_download_is_asked_for_with_an_explicit_data_home(tmp_path, capsys, monkeypatch):
    from graphinvariants.datasets import tu

    asked = []

    def download(name, home):
        asked.append((name, home))
        raise tu.DataNotFoundError("offline in this test")

    monkeypatch.setattr(tu, "_download", download)
    status, _, err = run(capsys, "evaluate", "MUTAG", "--data-home", tmp_path, "--download", "--out", tmp_path)
    assert asked == [("MUTAG", tmp_path)] and status == 2 and "offline in this test" in err
    status, _, err = run(capsys, "evaluate", "MUTAG", "--download", "--no-download")
    assert status == 2 and "not allowed with argument" in err


def test_perturb_table_has_no_column_that_reads_the_same_on_every_row(tmp_path, capsys):
    """Was: the default table ended in a column reading "more than 20 steps" on every
    row; when no row crosses, a sentence under the table says so instead."""
    status, out, _ = run(capsys, "perturb", "--graphs", "5", "--steps", "3", "--out", tmp_path / "p.png")
    table = out.splitlines()[1:6]
    assert status == 0 and not any("more than" in line or "below the median" in line for line in table)
    assert "Every mean stayed above the median kernel between a graph and the other graphs of its collection " \
           "for all 3 steps" in " ".join(out.split())


def test_the_learned_files_carry_no_k_that_does_not_reach_it(tmp_path):
    """Was: checkpoint-MUTAG-learned-k5-..., though --k does not reach the learned default."""
    from graphinvariants.cli.evaluate import _evaluation_files

    args = build_parser().parse_args(["evaluate", "MUTAG", "--k", "7", "--reps", "2", "--folds", "3"])
    for spec, expected in (("learned", "MUTAG-learned-reps2-folds3-seed0"),
                           ("learned:members=wl", "MUTAG-learned_members_wl-reps2-folds3-seed0"),
                           ("power", "MUTAG-k7-reps2-folds3-seed0"), ("wl", "MUTAG-wl-k7-reps2-folds3-seed0")):
        checkpoint, details = _evaluation_files("MUTAG", spec, args, tmp_path)
        assert (checkpoint.name, details.name) == (f"checkpoint-{expected}.jsonl", f"evaluation-{expected}.json")


def test_learned_options_reach_the_molecule_member():
    """The descriptors member of the learned default (molecules only) takes options on
    the command line: they were refused while parsing ("need molecules"), the check
    building the candidates for graphs without molecules."""
    from graphinvariants.cli._kernels import kernel_list

    [(_, _, params)] = kernel_list("learned:members=descriptors+wl,descriptors__bandwidth_scale=0.5")
    assert params["members"] == ("descriptors", "wl") and params["descriptors__bandwidth_scale"] == 0.5
