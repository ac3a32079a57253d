package net.cheetah.simulator;

/** Sees every packet the port starts to transmit; lets tests check the scheduler from outside. */
interface ServiceListener {
  /**
   * @param queue 0 for the primary queue, 1 for the scavenger queue
   * @param tag -1 for background, else the cheetah's transmission number
   */
  void onService(int queue, double arrival, double start, int bytes, int tag);
}
