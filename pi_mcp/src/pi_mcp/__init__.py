"""pi's MCP client plugin."""
