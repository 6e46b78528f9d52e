public class Reading {
    private final int temperature;
    private final int humidity;
    private final int pressure;
    private final int windSpeed;
    private final int rainfall;

    public Reading(int temperature, int humidity, int pressure, int windSpeed, int rainfall) {
        this.temperature = temperature;
        this.humidity = humidity;
        this.pressure = pressure;
        this.windSpeed = windSpeed;
        this.rainfall = rainfall;
    }

    public int getTemperature() { return temperature; }
    public int getHumidity() { return humidity; }
    public int getPressure() { return pressure; }
    public int getWindSpeed() { return windSpeed; }
    public int getRainfall() { return rainfall; }
}
