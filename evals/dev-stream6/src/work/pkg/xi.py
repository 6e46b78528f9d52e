X = 'xi'
