// A small corpus for the retrieval quality test: the kind of documents customers load into a
// voice agent's knowledge base, each several paragraphs long, with overlapping vocabulary
// (appointments, prices, refunds, warranties) across documents on purpose.

export interface CorpusDocument {
  title: string;
  content: string;
}

export interface CorpusQuestion {
  question: string;
  /** A phrase of the passage that answers it; a retrieved chunk containing it is a hit. */
  answer: string;
}

export const CORPUS: CorpusDocument[] = [
  {
    title: 'Bright Smile Dental Clinic: frequently asked questions',
    content: `Bright Smile Dental Clinic is located at 214 Maple Avenue, Springfield, on the second floor above the pharmacy. Free parking is available behind the building, and the entrance is wheelchair accessible through the side ramp.

Our opening hours are Monday to Friday from 8:00 am to 6:00 pm, and Saturday from 9:00 am to 1:00 pm. We are closed on Sundays and public holidays. For dental emergencies outside opening hours, call our after-hours line at 555-0199 and the on-call dentist will call you back within 30 minutes.

We accept most major dental insurance plans, including Delta Dental, Cigna, MetLife and Aetna. Patients without insurance can join the Bright Smile Membership Plan for $29 per month, which covers two cleanings and one set of X-rays per year and gives 15% off all other treatments.

A routine check-up and cleaning costs $120 without insurance. Teeth whitening in the clinic costs $350 per session, and take-home whitening trays cost $180. A single dental implant, including the crown, starts at $3,200. We offer interest-free payment plans through CareCredit for treatments over $500.

Children are welcome from their first birthday. Our pediatric dentist, Dr. Laura Chen, sees young patients on Tuesdays and Thursdays. We recommend a first visit once the first tooth appears, and fluoride varnish is applied free of charge for children under twelve.

If you feel anxious about dental work, ask about sedation options. We offer nitrous oxide (laughing gas) for $75 per visit and oral sedation for longer procedures. Noise-cancelling headphones and ceiling-mounted TVs are available in every treatment room.

New patients should arrive 15 minutes early to fill in the medical history form, and bring a photo ID, their insurance card and a list of current medications. Records from a previous dentist can be transferred by email if you sign a release form.`,
  },
  {
    title: 'SunPeak Solar: products and pricing',
    content: `SunPeak Solar designs and installs residential solar systems across Arizona, Nevada and New Mexico. Every system is designed after a free on-site assessment, in which an engineer measures the roof, checks shading and reviews twelve months of electricity bills.

Our panels are SunPeak Apex 410 W monocrystalline modules with 21.8% efficiency. A typical home uses a 6 kW system made of fifteen panels, which covers about 9,000 kWh of electricity per year in our region.

Pricing: a 6 kW system costs $16,800 installed, before incentives, which is $2.80 per watt. An 8 kW system costs $21,600 and a 10 kW system costs $26,500. The federal solar tax credit currently reduces the net cost by 30%, so a 6 kW system costs about $11,760 after the credit.

Battery storage is optional. The SunPeak PowerVault stores 13.5 kWh and costs $9,900 installed. It keeps the lights, refrigerator and internet running during a power outage and can be added to an existing system at any time.

Financing is available with zero down payment. Our solar loan runs for 10, 15 or 20 years at fixed rates starting from 4.99% APR. Customers may also lease a system for a fixed monthly payment starting at $99, in which case SunPeak owns and maintains the panels.

Installation usually takes one or two days on the roof, after permits are approved. The whole process, from signing the contract to switching the system on, takes six to ten weeks, mostly waiting for the city permit and the utility's permission to operate.

Warranty: panels carry a 25-year performance warranty guaranteeing at least 85% of original output, inverters a 12-year warranty, and our workmanship and roof penetrations a 10-year warranty against leaks. Monitoring through the SunPeak app is included free for the life of the system.`,
  },
  {
    title: 'Northwind Outfitters: returns and refunds policy',
    content: `You can return most items bought from Northwind Outfitters within 30 days of delivery for a full refund. Items must be unused, unwashed and in their original packaging with all tags attached.

Some items cannot be returned: gift cards, personalized or monogrammed products, swimwear and underwear for hygiene reasons, and anything marked as final sale. Opened tents and sleeping bags can be returned only if they are defective.

To start a return, sign in to your account, open the order and choose "Return items". You will receive a prepaid return label by email. Returns by mail are free for members of Northwind Rewards; for everyone else a return shipping fee of $6.95 is deducted from the refund.

You can also return online purchases in any of our 40 retail stores, free of charge. Bring the order confirmation email or the packing slip. Store staff can offer an exchange for a different size or color on the spot.

Refunds are issued to the original payment method within 5 to 7 business days after the warehouse receives the return. Purchases paid with a gift card are refunded as store credit. Original shipping charges are not refunded, except when the item arrived damaged or we sent the wrong item.

If an item arrives damaged or defective, contact us within 14 days with a photo of the damage. We will send a replacement at no cost or refund you in full including shipping, and you do not need to send the damaged item back for orders under $50.

Holiday returns: items bought between November 15 and December 24 can be returned until January 31 of the following year.`,
  },
  {
    title: 'Riverside Physiotherapy: appointment and cancellation policy',
    content: `Appointments at Riverside Physiotherapy can be booked online, by phone, or at the front desk. An initial assessment lasts 60 minutes and follow-up treatments last 30 or 45 minutes. You do not need a doctor's referral to book, although some insurers require one for reimbursement.

Please arrive 10 minutes before your first appointment and wear loose, comfortable clothing, such as shorts and a T-shirt, so the physiotherapist can examine the injured area. Bring any X-ray or MRI reports you have.

We need at least 24 hours' notice to cancel or reschedule an appointment. Cancellations with less than 24 hours' notice, and missed appointments without notice, are charged a late cancellation fee of $40. The fee is waived once per year, and for documented medical emergencies.

If you are more than 15 minutes late, we may need to shorten your session or rebook it, and the full session fee still applies. Patients who miss three appointments without notice may be asked to prepay future sessions.

The initial assessment costs $110 and each follow-up session costs $85. Payment is due at the end of each visit by card or cash; we do not accept checks. We bill extended health insurers directly for most major plans, and you pay only the part that is not covered.

We keep a waiting list for earlier appointments. If you would like an earlier slot, ask to be added and we will text you when a cancellation opens up. Text reminders are sent two days before every appointment; reply C to confirm.

Home visits are available for patients who cannot travel, within 10 miles of the clinic, for an additional $30 travel fee.`,
  },
  {
    title: 'Northwind Outfitters: shipping and delivery',
    content: `Standard shipping within the continental United States is free on orders over $75. Orders under $75 ship for a flat rate of $7.95. Standard delivery takes 3 to 5 business days after the order ships.

Express shipping costs $19.95 and delivers in 1 to 2 business days. Orders placed before 1 pm Eastern time on a business day ship the same day; later orders ship the next business day.

We ship to Alaska, Hawaii and Puerto Rico for a flat $24.95, with delivery in 7 to 10 business days. International shipping is available to Canada, the United Kingdom and Australia; customs duties and import taxes are paid by the recipient on delivery.

Every order gets a tracking number by email as soon as it leaves the warehouse. If the tracking has not updated for five business days, contact us and we will open an investigation with the carrier.

Large items such as kayaks and canoes ship by freight and require a delivery appointment. The carrier calls you to schedule a four-hour delivery window, and someone aged 18 or older must be present to sign.

We cannot ship to P.O. boxes with express shipping or freight. Orders can be changed or cancelled within one hour of being placed; after that the order is already being packed.`,
  },
];

export const QUESTIONS: CorpusQuestion[] = [
  // Dental clinic
  { question: 'Where is the dental clinic?', answer: '214 Maple Avenue' },
  { question: 'Is there parking at the dentist?', answer: 'Free parking is available behind the building' },
  { question: 'Are you open on Saturdays?', answer: 'Saturday from 9:00 am to 1:00 pm' },
  {
    question: 'I have a toothache in the middle of the night, who do I call?',
    answer: 'after-hours line at 555-0199',
  },
  { question: 'Do you take Cigna insurance?', answer: 'Delta Dental, Cigna, MetLife and Aetna' },
  {
    question: "I don't have insurance, is there a membership plan?",
    answer: 'Bright Smile Membership Plan for $29 per month',
  },
  {
    question: 'How much does a cleaning cost without insurance?',
    answer: 'routine check-up and cleaning costs $120',
  },
  { question: 'What is the price of teeth whitening?', answer: 'whitening in the clinic costs $350' },
  { question: 'How much is a dental implant?', answer: 'starts at $3,200' },
  {
    question: 'At what age can my kid see the dentist?',
    answer: 'Children are welcome from their first birthday',
  },
  {
    question: "I'm scared of the dentist, do you offer laughing gas?",
    answer: 'nitrous oxide (laughing gas) for $75',
  },
  {
    question: 'What should I bring to my first dental visit as a new patient?',
    answer: 'bring a photo ID, their insurance card',
  },
  // Solar
  { question: 'Which states do you install solar panels in?', answer: 'Arizona, Nevada and New Mexico' },
  { question: 'Is the solar assessment free?', answer: 'free on-site assessment' },
  { question: 'How efficient are your panels?', answer: '21.8% efficiency' },
  { question: 'How much does a 6 kW solar system cost?', answer: 'a 6 kW system costs $16,800 installed' },
  { question: 'What does it cost after the federal tax credit?', answer: 'about $11,760 after the credit' },
  { question: 'Do you sell a home battery for power outages?', answer: 'PowerVault stores 13.5 kWh' },
  { question: 'Can I get solar with no money down? What loan rates?', answer: 'starting from 4.99% APR' },
  {
    question: 'Can I lease the panels instead of buying?',
    answer: 'lease a system for a fixed monthly payment starting at $99',
  },
  {
    question: 'How long does the solar installation take from contract to switching on?',
    answer: 'six to ten weeks',
  },
  { question: 'What warranty do the solar panels have?', answer: '25-year performance warranty' },
  {
    question: 'Is my roof protected against leaks after installation?',
    answer: 'roof penetrations a 10-year warranty against leaks',
  },
  // Returns
  { question: 'How many days do I have to return an item?', answer: 'within 30 days of delivery' },
  { question: 'Can I return swimwear?', answer: 'swimwear and underwear for hygiene reasons' },
  { question: 'Is return shipping free?', answer: 'return shipping fee of $6.95' },
  {
    question: 'Can I return an online order in a store?',
    answer: 'return online purchases in any of our 40 retail stores',
  },
  {
    question: 'When will I get my refund?',
    answer: 'within 5 to 7 business days after the warehouse receives',
  },
  {
    question: 'My jacket arrived damaged, what should I do?',
    answer: 'contact us within 14 days with a photo of the damage',
  },
  {
    question: 'I bought a Christmas gift in December, until when can it be returned?',
    answer: 'returned until January 31',
  },
  // Physiotherapy appointments
  {
    question: 'Do I need a referral from my doctor to book physiotherapy?',
    answer: "do not need a doctor's referral",
  },
  { question: 'What should I wear to my physio appointment?', answer: 'wear loose, comfortable clothing' },
  {
    question: 'How much notice do I need to give to cancel my appointment?',
    answer: "at least 24 hours' notice to cancel",
  },
  { question: 'Is there a fee for a late cancellation?', answer: 'late cancellation fee of $40' },
  { question: 'What happens if I am running 20 minutes late?', answer: 'more than 15 minutes late' },
  { question: 'How much does the initial physio assessment cost?', answer: 'initial assessment costs $110' },
  { question: 'Can I pay by check?', answer: 'we do not accept checks' },
  {
    question: 'Is there a waiting list for an earlier appointment?',
    answer: 'We keep a waiting list for earlier appointments',
  },
  { question: 'Do you do home visits?', answer: 'Home visits are available' },
  // Shipping
  { question: 'Is shipping free?', answer: 'free on orders over $75' },
  {
    question: 'How fast is express delivery and what does it cost?',
    answer: 'Express shipping costs $19.95',
  },
  { question: 'Do you ship to Hawaii?', answer: 'Alaska, Hawaii and Puerto Rico' },
  {
    question: 'Who pays customs duties on international orders?',
    answer: 'customs duties and import taxes are paid by the recipient',
  },
  {
    question: "My tracking number hasn't updated in a week",
    answer: 'tracking has not updated for five business days',
  },
  { question: 'How is a kayak delivered?', answer: 'kayaks and canoes ship by freight' },
  { question: 'Can I cancel my order after placing it?', answer: 'changed or cancelled within one hour' },
];
