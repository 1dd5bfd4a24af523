"""Request and response schemas, one module per API family (all versions declared once)."""
