"""The cell grid every table is held in, synthetic or real, and the readers that build it."""
from generator_py.grid.cells import Cell, TableGrid, check_cells

__all__ = ["Cell", "TableGrid", "check_cells"]
