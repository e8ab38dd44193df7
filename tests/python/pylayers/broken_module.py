"""A module that fails as it is imported."""

import numpy as np  # noqa: F401

raise RuntimeError("broken_module cannot be imported")
