"""The server's composition root: the loop core with the adapters a command asks for."""
