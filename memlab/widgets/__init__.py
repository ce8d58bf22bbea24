"""Thin ipywidgets panels over functions that return DataFrames (those functions are tested)."""

from memlab.widgets.layers import LayerDashboard

__all__ = ["LayerDashboard"]
