"""calibration package (see ARCHITECTURE)."""
