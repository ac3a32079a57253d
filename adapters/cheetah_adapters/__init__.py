"""Redirect adapters: apply signed redirect commands to devices (docs/REDIRECTS.md, docs/ADAPTERS.md)."""
