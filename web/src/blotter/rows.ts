/** yieldRows is how many of the newest rows show a yield: each distinct price and date asks the venue once. */
export const yieldRows = 50;
