"""Pieces shared by several pages (figures, controls)."""
