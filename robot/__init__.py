"""robot package (see ARCHITECTURE)."""
