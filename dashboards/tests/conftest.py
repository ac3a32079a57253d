import sys
from pathlib import Path

# The tooling is imported from the source tree (dashboards/), run by Superset's venv python.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
