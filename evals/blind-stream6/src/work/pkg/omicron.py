X = 'omicron'
