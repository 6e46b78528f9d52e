// Prints the meeting-room bookings for one day as a table.
const bookings = [
  { room: "Aurora", from: "09:00", to: "10:00", team: "Platform", status: "confirmed" },
  { room: "Aurora", from: "10:00", to: "11:00", team: "Platform", status: "confirmed" },
  { room: "Aurora", from: "11:00", to: "12:00", team: "Platform", status: "confirmed" },
  { room: "Aurora", from: "13:00", to: "14:00", team: "Design", status: "tentative" },
  { room: "Borealis", from: "09:00", to: "10:00", team: "Data", status: "confirmed" },
  { room: "Borealis", from: "10:00", to: "11:00", team: "Data", status: "confirmed" },
  { room: "Borealis", from: "14:00", to: "15:00", team: "Data", status: "confirmed" },
  { room: "Cirrus", from: "09:00", to: "10:00", team: "Support", status: "confirmed" },
  { room: "Cirrus", from: "15:00", to: "16:00", team: "Support", status: "confirmed" },
  { room: "Cirrus", from: "16:00", to: "17:00", team: "Support", status: "tentative" },
];
console.table(bookings);
