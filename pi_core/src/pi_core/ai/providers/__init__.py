"""The built-in wire APIs. Each module imports its SDK only inside functions, so importing this is cheap."""

from __future__ import annotations
