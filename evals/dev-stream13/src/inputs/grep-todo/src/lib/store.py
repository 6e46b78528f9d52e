class Store:
    def __init__(self):
        self.items = {}  # TODO: persist to disk

    def get(self, key):
        # TODO: raise a clearer error for missing keys
        return self.items[key]

    def put(self, key, value):
        # TODO: validate the key
        # TODO: validate the value
        self.items[key] = value
