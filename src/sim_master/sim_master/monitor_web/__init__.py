"""Browser monitor: HTTP + WebSocket server and a small canvas page."""
