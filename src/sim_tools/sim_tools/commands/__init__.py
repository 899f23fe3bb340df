"""`soccersim` subcommands that are tools, not the server: match, team, snapshot, launch."""
