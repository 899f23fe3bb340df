"""The subcommands of `soccersim`, one module each."""
