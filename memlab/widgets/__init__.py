"""Thin ipywidgets panels over functions that return DataFrames (those functions are tested)."""

from memlab.widgets.eval import EvalDashboard
from memlab.widgets.layers import LayerDashboard

__all__ = ["EvalDashboard", "LayerDashboard"]
