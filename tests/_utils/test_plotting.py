import matplotlib.pyplot as plt
import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def test_kernel_decay_display_plots_the_study_data():
    graphs = [nx.gnp_random_graph(30, 0.1, seed=i) for i in range(12)]
    study = gi.perturbation_study(graphs, n_graphs=10, n_steps=4, seed=0, name="ER")
    display = study.plot()
    line = display.lines_["ER"]
    np.testing.assert_array_equal(line.get_xdata(), np.arange(5))
    np.testing.assert_allclose(line.get_ydata(), study.mean)
    assert display.ax_.get_ylabel() == "power kernel with the original graph"
    assert display.ax_.get_xlabel() == "number of edge flips"
    assert display.figure_ is display.ax_.figure


def test_kernel_matrix_display_groups_rows_by_class():
    K = np.array([[1.0, 0.2, 0.9], [0.2, 1.0, 0.1], [0.9, 0.1, 1.0]])
    display = gi.plot_kernel_matrix(K, ["b", "a", "b"])
    np.testing.assert_array_equal(display.order, [1, 0, 2])
    np.testing.assert_array_equal(display.image_.get_array(), K[np.ix_([1, 0, 2], [1, 0, 2])])
    with pytest.raises(ValueError, match="square"):
        gi.plot_kernel_matrix(np.ones((2, 3)))


def test_invariants_display_and_png(tmp_path):
    inv = gi.power_invariants(nx.karate_club_graph())
    display = gi.plot_invariants(inv)
    mean_line = display.axes_[0].lines[0]
    np.testing.assert_allclose(mean_line.get_ydata(), inv.mean)
    np.testing.assert_array_equal(display.axes_[1].images[0].get_array(), inv.covariance)
    display.figure_.savefig(tmp_path / "inv.png")
    assert (tmp_path / "inv.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_wrong_axes_are_a_clear_error():
    import matplotlib.pyplot as plt
    import networkx as nx

    G = nx.path_graph(5)
    fig, axes = plt.subplots(1, 2)
    try:
        with pytest.raises(TypeError, match=r"ax must be 2 matplotlib Axes .*got matplotlib.axes._axes.Axes"):
            gi.InvariantsDisplay.from_graph(G).plot(ax=axes[0])
        with pytest.raises(TypeError, match=r"ax must be one matplotlib Axes, got numpy.ndarray of shape \(2,\)"):
            gi.KernelMatrixDisplay(np.eye(2)).plot(ax=axes)
        gi.InvariantsDisplay.from_graph(G).plot(ax=axes)  # a pair works, as a list too
        gi.InvariantsDisplay.from_graph(G).plot(ax=list(axes))
    finally:
        plt.close(fig)
    with pytest.raises(ValueError, match="NaN"):
        gi.KernelMatrixDisplay(np.full((2, 2), np.nan))


def test_an_empty_kernel_matrix_or_graph_list_is_refused():
    # used to draw an empty image with matplotlib's "singular transformation" warnings
    with pytest.raises(ValueError, match="nothing to plot"):
        gi.plot_kernel_matrix(np.zeros((0, 0)))
    with pytest.raises(ValueError, match="nothing to plot"):
        gi.KernelMatrixDisplay.from_graphs([])
    with pytest.raises(ValueError, match="nothing to plot"):
        gi.KernelDecayDisplay.from_studies({})
    with pytest.raises(ValueError, match="nothing to plot"):
        gi.KernelDecayDisplay({})


def test_studies_given_as_a_list_are_named_by_their_own_names():
    graphs = [nx.cycle_graph(6), nx.path_graph(5)]
    first = gi.perturbation_study(graphs, n_graphs=None, n_steps=2, seed=0, name="first")
    second = gi.perturbation_study(graphs, n_graphs=None, n_steps=2, seed=1)
    display = gi.KernelDecayDisplay.from_studies([first, second]).plot()
    assert list(display.lines_) == ["first", "study 1"]
    with pytest.raises(TypeError, match="PerturbationStudy"):
        gi.KernelDecayDisplay.from_studies([first, "x"])


def test_a_sparse_kernel_matrix_is_drawn_as_its_dense_values():
    import scipy.sparse as sp

    display = gi.plot_kernel_matrix(sp.csr_array(np.eye(3)))
    np.testing.assert_array_equal(display.K, np.eye(3))


def _one_network_study():
    return gi.perturbation_study(nx.grid_2d_graph(30, 30), n_sequences=4, n_steps=5, seed=0, name="grid")


def test_one_network_study_plots_one_minus_k_on_a_log_axis(tmp_path):
    # issue 44 item 17: K of one network stays within 1e-4 of 1; the plot shows 1 - K
    study = _one_network_study()
    display = study.plot()
    ax = display.ax_
    line = display.lines_["grid"]
    np.testing.assert_array_equal(line.get_xdata(), np.arange(1, 6))
    np.testing.assert_allclose(line.get_ydata(), 1 - study.mean[1:])
    assert ax.get_yscale() == "log" and ax.get_ylabel().startswith("1 - power kernel")
    low, high = ax.get_ylim()
    values = 1 - study.mean[1:]
    # the limits follow the data: within a decade of the values on each side
    assert values.min() / 10 < low <= values.min() and values.max() <= high < values.max() * 10
    display.figure_.savefig(tmp_path / "one.png")


def test_kernel_decay_display_on_a_log_axis_follows_the_data():
    # the large_networks.rst recipe: curves given by hand, yscale="log"; and a linear
    # plot switched to log afterwards autoscales too (its limits are not pinned)
    study = _one_network_study()
    curves = {"grid": (study.steps[1:], 1 - study.mean[1:], study.stderr[1:])}
    values = 1 - study.mean[1:]
    for display in (gi.KernelDecayDisplay(curves, yscale="log").plot(), gi.KernelDecayDisplay(curves).plot()):
        display.ax_.set_yscale("log")
        display.ax_.autoscale_view()
        low, high = display.ax_.get_ylim()
        assert values.min() / 10 < low <= values.min() and values.max() <= high < values.max() * 10
    with pytest.raises(ValueError, match="yscale must be"):
        gi.KernelDecayDisplay(curves, yscale="symlog")


def test_collections_and_one_network_mixed_keep_k_on_a_linear_axis():
    graphs = [nx.gnp_random_graph(30, 0.1, seed=i) for i in range(12)]
    mixed = {"ER": gi.perturbation_study(graphs, n_graphs=10, n_steps=5, seed=0), "grid": _one_network_study()}
    display = gi.KernelDecayDisplay.from_studies(mixed).plot()
    assert display.ax_.get_yscale() == "linear"
    np.testing.assert_allclose(display.lines_["grid"].get_ydata(), mixed["grid"].mean)


# -- issue 52 item 18: titles by what ran, a band swatch of the bands' colours -----------------
def _network_studies(names, n_sequences=3):
    return {name: gi.perturbation_study(nx.cycle_graph(12 + i), n_sequences=n_sequences, n_steps=2, seed=i, name=name)
            for i, name in enumerate(names)}


def test_several_networks_are_titled_as_several():
    # three network files used to read "100 sequences of one network"
    display = gi.KernelDecayDisplay.from_studies(_network_studies(["a.txt", "b.txt", "c.txt"])).plot()
    title = display.ax_.get_title().replace("\n", " ")
    assert "one network" not in title and "3 sequences of each of 3 networks" in title
    assert title.startswith("power (k=5) after random flip steps")
    two = gi.KernelDecayDisplay.from_studies(_network_studies(["x.txt", "y.txt"], n_sequences=2)).plot()
    assert "2 sequences of each of 2 networks" in two.ax_.get_title().replace("\n", " ")


def test_a_study_plot_has_a_title_that_names_what_ran():
    graphs = [nx.gnp_random_graph(30, 0.1, seed=i) for i in range(12)]
    study = gi.perturbation_study(graphs, n_graphs=10, n_steps=2, seed=0, kind="remove_edge", name="ER")
    title = study.plot().ax_.get_title().replace("\n", " ")
    assert title == "power (k=5) after random remove_edge steps: 10 graphs of ER"
    network = _network_studies(["grid.txt"])["grid.txt"].plot().ax_.get_title().replace("\n", " ")
    assert network == "power (k=5) after random flip steps: 3 sequences of grid.txt"
    wl = gi.perturbation_study(graphs, n_graphs=4, n_steps=2, seed=0, kernel="wl", kernel_params={"n_iter": 2})
    mixed = gi.KernelDecayDisplay.from_studies({"ER": study, "ER / wl": wl, **_network_studies(["g.txt"])}).plot()
    assert mixed.ax_.get_title().replace("\n", " ") == (
        "power (k=5), wl after random perturbations: 3 sequences of g.txt and 4 or 10 graphs of each collection")
    untitled = gi.KernelDecayDisplay.from_studies({"ER": study}, title="").plot()
    assert untitled.ax_.get_title() == ""
    assert gi.KernelDecayDisplay({"x": ([0, 1], [1.0, 0.9], [0.0, 0.01])}).plot().ax_.get_title() == ""


def test_the_legend_band_swatch_has_the_bands_colours():
    graphs = [nx.gnp_random_graph(30, 0.1, seed=i) for i in range(12)]
    studies = {name: gi.perturbation_study(graphs, n_graphs=5, n_steps=2, seed=s, name=name)
               for s, name in enumerate(["first", "second"])}
    display = gi.KernelDecayDisplay.from_studies(studies).plot()
    legend = display.ax_.get_legend()
    texts = [t.get_text() for t in legend.get_texts()]
    assert texts[-1] == "band: mean ± 1 standard error"
    from matplotlib.colors import to_rgb

    bands = [to_rgb(band.get_facecolor()[0][:3]) for band in display.bands_.values()]
    assert bands == [to_rgb(line.get_color()) for line in display.lines_.values()]
    # the swatch's patches, drawn in the legend box, carry those colours (not grey)
    from matplotlib.patches import Rectangle

    swatch = [p.get_facecolor() for p in legend.findobj(Rectangle)]
    assert [to_rgb(c[:3]) for c in swatch] == bands and all(c[3] == 0.25 for c in swatch)
