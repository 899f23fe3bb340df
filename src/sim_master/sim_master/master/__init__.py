"""The master: the cycle loop (single mode), distributed coordination, and the glue between
bridge, referee and engine."""
