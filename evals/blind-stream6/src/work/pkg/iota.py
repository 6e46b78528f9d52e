X = 'iota'
