@Generable
indirect enum Transport {
    case walk
    case flight(number: String, seats: Int)
    case bus(String, Int?)
}
