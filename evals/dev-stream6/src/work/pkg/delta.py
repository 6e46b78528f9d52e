X = 'delta'
