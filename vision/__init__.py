"""vision package (see ARCHITECTURE)."""
