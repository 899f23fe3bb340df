"""Worlds: SDF files -> engine-neutral specs (the engines build their models from these)."""
