import pickle

stations = [
    {"id": "BRG", "name": "Bergen", "lat": 60.39, "lon": 5.32, "active": True},
    {"id": "TRD", "name": "Trondheim", "lat": 63.43, "lon": 10.39, "active": True},
    {"id": "TOS", "name": "Tromso", "lat": 69.65, "lon": 18.96, "active": False},
    {"id": "STV", "name": "Stavanger", "lat": 58.97, "lon": 5.73, "active": True},
    {"id": "BOO", "name": "Bodo", "lat": 67.28, "lon": 14.40, "active": True},
]
with open("stations.pkl", "wb") as f:
    pickle.dump(stations, f, protocol=2)
