X = 'epsilon'
