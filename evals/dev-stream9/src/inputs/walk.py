def walk(depth):
    return walk(depth + 1)


walk(0)
