from __future__ import annotations

import sys
from pathlib import Path

# Importable without installing: PYTHONPATH=ingest/transfers works too.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
