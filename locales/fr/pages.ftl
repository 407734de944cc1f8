## The pages: report.html and the pages of `ratewatch serve`.
