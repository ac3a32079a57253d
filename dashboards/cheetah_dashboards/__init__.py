"""Cheetah's Superset dashboards as code: serve Superset, import the bundles, check them headless."""
