"""Playing: a match's plan, its bots (``roster``) and its hands (``table``), the match and the
runner that plays matches, comparisons and a league's jobs (locally or on Dask), the seeds, the
journal that resumes, and the report the views read."""
